/** The one 16 kHz constant: uploads are decoded to it; ASR models and the speaker encoder take it. */
export const SPEECH_SAMPLE_RATE = 16000;
