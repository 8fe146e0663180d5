/** Length helpers shared by the front-end and the request validators. */

/**
 * Number of Unicode code points in `s` (D6 counts input length in code points, so an emoji or a
 * supplementary-plane character counts once, not twice as `String#length` would).
 */
export function codePointLength(s: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return s.length - surrogatePairs;
}
