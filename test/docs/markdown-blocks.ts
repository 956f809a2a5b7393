// Internal test helper: finds the fenced code blocks of a Markdown file and reads the attributes of
// their info strings, for the executed-documentation test.

/** Languages whose blocks are run: shell commands and GraphQL operations. */
export const RUN_LANGUAGES = ['sh', 'bash', 'graphql'] as const;
export type RunLanguage = (typeof RUN_LANGUAGES)[number];

/**
 * Attributes an info string may carry after its language (```sh expect=403):
 * - `expect`: the HTTP status every request of the block must answer (default: any 2xx);
 * - `code`: the GraphQL error code the answer must carry (`extensions.code` of its first error);
 * - `token`: GraphQL only, the shell variable holding the bearer token (default `ADMIN`);
 * - `variables`: GraphQL only, `name:SHELL_VAR,...`, string variables taken from the shell;
 * - `covered-by`: not run here; the named file runs it (a set-up command, a CLI with its own test);
 * - `no-run`: not run anywhere, and why (a benchmark that runs for minutes).
 */
export const ATTRIBUTES = ['expect', 'code', 'token', 'variables', 'covered-by', 'no-run'] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

export interface FencedBlock {
  /** The language, lower-case; '' for a fence without one. */
  language: string;
  attributes: Partial<Record<Attribute, string>>;
  /** The block's text, without the fences, ending with a newline. */
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** `key=value` and `key="value with spaces"` pairs; throws on anything else. */
function parseAttributes(rest: string, where: string): FencedBlock['attributes'] {
  const attributes: FencedBlock['attributes'] = {};
  const pattern = /\s*([a-z-]+)=(?:"([^"]*)"|(\S+))/y;
  let index = 0;
  while (index < rest.length) {
    if (rest.slice(index).trim() === '') break;
    pattern.lastIndex = index;
    const match = pattern.exec(rest);
    if (!match)
      throw new Error(
        `${where}: expected key=value attributes after the language, got "${rest.slice(index).trim()}"`,
      );
    const key = match[1] as Attribute;
    if (!ATTRIBUTES.includes(key))
      throw new Error(`${where}: unknown attribute "${key}" (known: ${ATTRIBUTES.join(', ')})`);
    attributes[key] = match[2] ?? match[3];
    index = pattern.lastIndex;
  }
  return attributes;
}

/** Every fenced block (``` or ~~~) of `markdown`, in order; `file` names it in errors. */
export function fencedBlocks(markdown: string, file: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const where = `${file}:${i + 1}`;
    const [language = '', ...rest] = info.trim().split(/\s+/);
    const attributes = parseAttributes(rest.join(' '), where);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      if (
        lines[j].trim().startsWith(fence[0].repeat(fence.length)) &&
        lines[j].trim().replace(/[`~]/g, '') === ''
      )
        break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    }
    if (j === lines.length) throw new Error(`${where}: the fence opened here is never closed`);
    blocks.push({
      language: language.toLowerCase(),
      attributes,
      text: body.join('\n') + '\n',
      line: i + 1,
    });
    i = j;
  }
  return blocks;
}
