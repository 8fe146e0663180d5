/**
 * Job and delivery ids. A job id carries the box that owns it (`job_<box>_<time><random>`), so a
 * load balancer can route every URL of a job to that box (deploy/haproxy) without shared state;
 * the time part (base 36, fixed width) makes ids of one box sort by creation, which list paging
 * relies on.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/** What a box id may be: DNS-label characters, so it fits a backend name and a URL. */
export const BOX_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** A job id: `job_`, the box, `_`, 9 characters of time, 12 of randomness. */
export const JOB_ID = /^job_([a-z0-9][a-z0-9-]{0,31})_([0-9a-z]{21})$/;

/** This box's id: the setting, else the host name made to fit {@link BOX_ID}. */
export function boxId(configured: string): string {
  const raw = configured.trim() || hostname();
  const id = raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 32);
  if (!BOX_ID.test(id)) throw new Error(`jobs.box_id ${JSON.stringify(raw)} cannot name a box`);
  return id;
}

/** The time part of the last id made here: two jobs created in one millisecond still sort in order. */
let lastTime = 0;

/** A new job id on `box`; ids made by one process sort strictly by creation. */
export function newJobId(box: string): string {
  lastTime = Math.max(Date.now(), lastTime + 1);
  const time = lastTime.toString(36).padStart(9, "0");
  const random = BigInt(`0x${randomBytes(8).toString("hex")}`)
    .toString(36)
    .padStart(12, "0")
    .slice(-12);
  return `job_${box}_${time}${random}`;
}

/** The box a job id names, or undefined when it is not a job id. */
export function boxOfJob(id: string): string | undefined {
  return JOB_ID.exec(id)?.[1];
}

/** A file's id inside its job: its position, `file_0001` style (stable, sortable). */
export function fileId(index: number): string {
  return `file_${String(index + 1).padStart(4, "0")}`;
}
