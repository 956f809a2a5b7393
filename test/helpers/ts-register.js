'use strict';
// Internal helper (tests, child processes and `npm run schema`): lets `node` run the TypeScript
// sources straight from a fresh clone, no build step (`node -r ./test/helpers/ts-register.js
// src/index.ts`), transpiling each file with the project's compiler options. Type checking is
// `npm run typecheck`'s job, not this hook's.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// Output is cached by content (and compiler version), so restarts — after a SIGKILL in the crash
// test, say — skip both the compiler's load and the transpiling.
const tsVersion = require('typescript/package.json').version;
const cacheDir = path.join(
  os.tmpdir(),
  `pipeline-gateway-ts-${tsVersion}-${process.getuid ? process.getuid() : 'user'}`,
);
fs.mkdirSync(cacheDir, { recursive: true });

let compile;
function compiler() {
  if (compile) return compile;
  const ts = require('typescript');
  const configPath = path.join(__dirname, '../../tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const { options } = ts.convertCompilerOptionsFromJson(
    config.compilerOptions,
    path.dirname(configPath),
  );
  const compilerOptions = {
    ...options,
    sourceMap: false,
    inlineSourceMap: true,
    module: ts.ModuleKind.CommonJS,
  };
  compile = (source, fileName) =>
    ts.transpileModule(source, { compilerOptions, fileName }).outputText;
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
