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

/** Every key of every object in `value`; members that are not objects are skipped here, not in a call of their own. */
function collectKeys(value: object, keys: Set<string>): void {
  if (Array.isArray(value)) {
    for (const entry of value) if (typeof entry === 'object' && entry !== null) collectKeys(entry, keys);
    return;
  }
  for (const key in value) {
    keys.add(key);
    const member = (value as Record<string, unknown>)[key];
    if (typeof member === 'object' && member !== null) collectKeys(member, keys);
  }
}
