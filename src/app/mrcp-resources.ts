/** The MRCP resources the MRCPv2 door serves (src/mrcp/server.ts), one line per feature door. */
import { speechrecogResource } from "../asr/mrcp/resource.ts";
import type { MrcpResource } from "../mrcp/resource.ts";
import { speechsynthResource } from "../tts/mrcp/resource.ts";

/** Every MRCP resource of this build. */
export const mrcpResources: readonly MrcpResource[] = [speechsynthResource, speechrecogResource];
