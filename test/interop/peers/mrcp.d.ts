/** Types of the npm `mrcp` package (1.4.2, MIT), which ships none: the parts the interop suite uses. */
declare module "mrcp" {
  /** A message as the package's parser reads it; header names are lower-cased. */
  export interface ParsedMrcpMessage {
    readonly type: "request" | "response" | "event";
    readonly version: string;
    readonly method?: string;
    readonly event_name?: string;
    readonly request_id: number;
    readonly status_code?: number;
    readonly request_state?: string;
    readonly headers: Record<string, string>;
    readonly body?: string;
  }
  const mrcp: {
    readonly parser: {
      /** The message-length field of a buffer starting with a start line, or null while it is incomplete. */
      get_msg_len(buffer: Buffer): number | null;
      parse_msg(message: Buffer | string): ParsedMrcpMessage;
    };
    readonly builder: {
      build_request(method: string, requestId: number, headers: Record<string, string | number>, body?: string): string;
    };
  };
  export default mrcp;
}
