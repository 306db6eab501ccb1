// Host name patterns (web*, db-?): how the fleet filter and the Add counters dialog match names.

// A host name pattern with * and ? wildcards, matched as paths match names: whole, any case.
export function globRegExp(pattern) {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp('^' + body + '$', 'i');
}
export const hasWildcard = (text) => /[*?]/.test(text);
