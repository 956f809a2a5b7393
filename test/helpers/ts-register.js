// Internal helper (tests and `npm run schema`): lets `node` run the TypeScript sources directly
// (`node -r ./test/helpers/ts-register.js src/index.ts`), transpiling each file with the
// project's compiler options. Type checking is `npm run typecheck`'s job, not this hook's.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ts = require('typescript');

const configPath = path.join(__dirname, '../../tsconfig.json');
const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, path.dirname(configPath));
const compilerOptions = { ...options, sourceMap: false, inlineSourceMap: true, module: ts.ModuleKind.CommonJS };

// Transpiled output is cached by content, so a second start in the same test run is quick.
const cacheDir = path.join(os.tmpdir(), `pipeline-gateway-ts-${ts.version}`);
fs.mkdirSync(cacheDir, { recursive: true });

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha1').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    output = ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
    fs.writeFileSync(`${cached}.${process.pid}`, output);
    fs.renameSync(`${cached}.${process.pid}`, cached);
  }
  module._compile(output, filename);
};
