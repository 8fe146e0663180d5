/** RFC 4733 telephone-events: DTMF digits carried in RTP. */

const DTMF_EVENTS = "0123456789*#ABCD";

/** An RFC 4733 telephone-event payload: the digit and whether this packet ends it. */
export function parseTelephoneEvent(payload: Uint8Array): { digit: string; end: boolean } | undefined {
  if (payload.length < 4 || payload[0]! > 15) return undefined;
  return { digit: DTMF_EVENTS[payload[0]!]!, end: (payload[1]! & 0x80) !== 0 };
}
