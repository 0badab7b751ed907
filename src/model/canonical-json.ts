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

/**
 * The same text as `canonicalJson` for plain data (objects, arrays, strings,
 * finite numbers, booleans, null, undefined members; no functions, no
 * `toJSON`), the fast way for large values such as a plan of thousands of
 * changes: `JSON.stringify` with a property list writes, in every object,
 * only the listed keys and in the list's order, so the sorted list of every
 * key in `data` sorts each object's keys, natively.
 */
export function canonicalJsonOfData(data: object): string {
  const keys = new Set<string>();
  collectKeys(data, keys);
  // A listed key is read through the prototype chain too: keep inherited names (`toString`) off the list.
  for (const key of keys) if (key in Object.prototype) return canonicalJson(data);
  return JSON.stringify(data, [...keys].sort());
}

function collectKeys(value: unknown, keys: Set<string>): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const entry of value) collectKeys(entry, keys);
    return;
  }
  for (const key in value) {
    keys.add(key);
    collectKeys((value as Record<string, unknown>)[key], keys);
  }
}
