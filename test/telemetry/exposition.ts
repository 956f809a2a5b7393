// Internal test helper: a parser of the Prometheus text exposition format (version 0.0.4), as
// specified in Prometheus's "Exposition formats": `# HELP` and `# TYPE` lines, and samples
// `name{label="value",...} value [timestamp]` with `\\`, `\"` and `\n` escaped in label values.
// prom-client writes the format but has no parser; a scraper's parser would be a Go program.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Metric family name → its TYPE. */
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

/** A sample value as Prometheus reads it (Go's ParseFloat: `NaN`, `+Inf`, `-Inf` in any case). */
function parseValue(text: string): number {
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN; // prom-client writes `Nan`
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`not a sample value: ${text}`);
  return value;
}

function parseLabels(text: string | undefined, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (text === undefined || text.trim() === '') return labels;
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match || LABEL.lastIndex === at) throw new Error(`bad labels in: ${line}`);
    labels[match[1]] = match[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/** Parses an exposition; throws on any line that is not a comment, a blank or a sample. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1], type[2]);
      else if (!/^# HELP \S+ /.test(line)) throw new Error(`bad comment line: ${line}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`bad sample line: ${line}`);
    samples.push({
      name: match[1],
      labels: parseLabels(match[2], line),
      value: parseValue(match[3]),
    });
  }
  return { types, samples };
}

/** The value of the one sample of `name` whose labels are exactly `labels`; undefined when none. */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string>,
): number | undefined {
  const wanted = Object.entries(labels);
  const found = exposition.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === wanted.length &&
      wanted.every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1)
    throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
