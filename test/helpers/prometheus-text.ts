/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4),
 * enough to prove a /metrics answer is well-formed: every line is a comment
 * (`# HELP`, `# TYPE`) or `name{label="value",…} number`; anything else throws,
 * naming the line. Returns the samples and the declared types.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
  /** The samples of one metric whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const [index, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const where = `line ${index + 1}: ${line}`;
    if (line.startsWith('#')) {
      const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
      if (type) types.set(type[1]!, type[2]!);
      else if (!new RegExp(`^# HELP ${NAME} `).test(line)) throw new Error(`not a HELP or TYPE comment: ${where}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample: ${where}`);
    const value = parseValue(match[3]!);
    if (value === undefined) throw new Error(`not a number: ${where}`);
    samples.push({ name: match[1]!, labels: parseLabels(match[2] ?? '', where), value });
  }
  return {
    samples,
    types,
    find: (name, labels = {}) =>
      samples.filter(
        (sample) =>
          sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
      ),
  };
}

/** As Prometheus reads it (Go's ParseFloat): Inf and NaN in any case (prom-client writes `Nan`). */
function parseValue(text: string): number | undefined {
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Number.POSITIVE_INFINITY;
  if (word === '-inf') return Number.NEGATIVE_INFINITY;
  if (word === 'nan') return Number.NaN;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (match === null) throw new Error(`bad labels: ${where}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    if (match[3] === '') break;
  }
  return labels;
}
