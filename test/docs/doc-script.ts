// Internal test helper: turns the runnable blocks of one document into one bash script, so they run
// in order and share their shell variables, as they do for a reader pasting them into a terminal.
import path from 'node:path';
import type { FencedBlock } from './markdown-blocks';

const PRELUDE = path.join(__dirname, 'doc-prelude.bash');
const HEREDOC_END = '__DOCS_GRAPHQL_END__';

/** A block the script runs, numbered from 1 in document order. */
export interface RunBlock {
  number: number;
  file: string;
  block: FencedBlock;
}

/** Single-quoted for bash. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Whether the block runs here (shell or GraphQL, and not marked `covered-by` or `no-run`). */
export function runsHere(block: FencedBlock): boolean {
  const runnable =
    block.language === 'sh' || block.language === 'bash' || block.language === 'graphql';
  return (
    runnable &&
    block.attributes['covered-by'] === undefined &&
    block.attributes['no-run'] === undefined
  );
}

/** The script: `set -euo pipefail`, the prelude (checked curl, __graphql), then each block. */
export function documentScript(blocks: readonly RunBlock[]): string {
  const lines = [
    'set -euo pipefail',
    'shopt -s inherit_errexit',
    `source ${quote(PRELUDE)}`,
    `trap 'echo "docs: block $__BLOCK stopped with exit status $?" >&2' ERR`,
  ];
  for (const { number, file, block } of blocks) {
    const { expect = '', code = '' } = block.attributes;
    lines.push(
      `__block ${number} ${quote(expect)} ${quote(code)} ${quote(`${file}:${block.line}`)}`,
    );
    if (block.language === 'graphql') {
      if (block.text.includes(HEREDOC_END))
        throw new Error(`${file}:${block.line}: the block contains ${HEREDOC_END}`);
      lines.push(
        `__graphql ${quote(block.attributes.token ?? 'ADMIN')} ${quote(block.attributes.variables ?? '')} <<'${HEREDOC_END}'`,
      );
      lines.push(block.text.trimEnd(), HEREDOC_END);
    } else {
      lines.push(block.text.trimEnd());
    }
  }
  return `${lines.join('\n')}\n`;
}
