/**
 * commander's parser for a repeatable option, on its own so that `validate`
 * does not load shared-options.ts (and with it the HTTP client) to get it.
 */

/** commander argParser for a repeatable option: every value, in order. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];
