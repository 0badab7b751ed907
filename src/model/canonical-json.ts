/**
 * JSON with object keys sorted at every level and `undefined` members dropped,
 * so equal data gives equal text whatever order it was built in. The basis of
 * every content digest (configuration, live site, plan) and of value
 * grouping in the serialiser. Pure; imports nothing.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((entry) => canonicalJson(entry ?? null)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}
