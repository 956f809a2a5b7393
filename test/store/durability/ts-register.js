'use strict';
// Lets a child process run the project's TypeScript straight from a fresh clone (no build step):
// `node -r ./test/store/durability/ts-register.js some-script.ts`. Each .ts file is transpiled
// on require with the project's compiler options (types are checked by `npm test`, not here).
// Output is cached in the OS temp dir by content hash, so restarts after a kill stay fast.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const cacheDir = path.join(os.tmpdir(), `pipeline-gateway-ts-cache-${process.getuid ? process.getuid() : 'user'}`);
fs.mkdirSync(cacheDir, { recursive: true });

let compile;
function compiler() {
  if (compile) return compile;
  const ts = require('typescript');
  const configPath = path.resolve(__dirname, '../../../tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, path.dirname(configPath));
  const compilerOptions = { ...options, module: ts.ModuleKind.CommonJS, sourceMap: false, inlineSourceMap: true };
  compile = (source, fileName) => ts.transpileModule(source, { compilerOptions, fileName }).outputText;
  return compile;
}

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const key = crypto.createHash('sha1').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    output = compiler()(source, filename);
    // Written under a unique name then renamed: concurrent children never read a partial file.
    const temp = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(temp, output);
    fs.renameSync(temp, cached);
  }
  module._compile(output, filename);
};
