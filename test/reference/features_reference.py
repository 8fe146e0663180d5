"""Independent reference values for src/audio/features (not run by CI; needs numpy + scipy).

Written separately from the TypeScript, in terms of numpy/scipy primitives: np.fft.rfft (pocketfft),
np.pad, scipy.signal.get_window, and the librosa mel algorithm as documented (Slaney scale,
slaney area norm, float32 weights). Prints JSON; the numbers are pasted into
src/audio/features/reference.test.ts.

    python3 test/reference/features_reference.py
"""
import json

import numpy as np
from scipy.signal import get_window

SR = 16000


def signal(n):
    """Same formula as referenceSignal() in the test: two tones plus LCG noise, as float32."""
    i = np.arange(n, dtype=np.float64)
    noise = np.array([((k * 1103515245 + 12345) % 2**31) / 2**31 - 0.5 for k in range(n)])
    x = 0.3 * np.sin(2 * np.pi * 440 * i / SR) + 0.2 * np.sin(2 * np.pi * 3000 * i / SR) + 0.05 * noise
    return x.astype(np.float32)


def hz_to_mel(f):
    f = np.asarray(f, dtype=np.float64)
    lin = f / (200.0 / 3)
    return np.where(f >= 1000, 15 + np.log(np.maximum(f, 1e-12) / 1000) / (np.log(6.4) / 27), lin)


def mel_to_hz(m):
    m = np.asarray(m, dtype=np.float64)
    return np.where(m >= 15, 1000 * np.exp((np.log(6.4) / 27) * (m - 15)), m * (200.0 / 3))


def mel_filters(n_fft, n_mels):
    fft_freqs = np.fft.rfftfreq(n_fft, 1.0 / SR)
    edges = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(SR / 2), n_mels + 2))
    weights = np.zeros((n_mels, len(fft_freqs)), dtype=np.float32)
    for m in range(n_mels):
        rising = (fft_freqs - edges[m]) / (edges[m + 1] - edges[m])
        falling = (edges[m + 2] - fft_freqs) / (edges[m + 2] - edges[m + 1])
        weights[m] = np.maximum(0, np.minimum(rising, falling)) * (2.0 / (edges[m + 2] - edges[m]))
    return weights


def whisper_log_mel(x, n_mels, n_frames=3000):
    audio = np.zeros(n_frames * 160, dtype=np.float64)
    audio[: min(len(x), len(audio))] = x[: len(audio)]
    padded = np.pad(audio, 200, mode="reflect")
    window = get_window("hann", 400, fftbins=True)  # periodic
    frames = np.lib.stride_tricks.sliding_window_view(padded, 400)[::160]  # 1 + len/160 frames
    spec = np.abs(np.fft.rfft(frames * window, axis=1)) ** 2
    spec = spec[:-1]  # whisper drops the last frame
    mel = mel_filters(400, n_mels).astype(np.float64) @ spec.T
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    return (log + 4.0) / 4.0


def nemo_fbank(x, pad_mode="constant"):
    x = x.astype(np.float64)
    x = np.concatenate([x[:1], x[1:] - 0.97 * x[:-1]]).astype(np.float32).astype(np.float64)
    padded = np.pad(x, 256, mode=pad_mode)
    window = np.zeros(512)
    window[56:456] = get_window("hann", 400, fftbins=False)  # symmetric
    frames = np.lib.stride_tricks.sliding_window_view(padded, 512)[::160]
    spec = np.abs(np.fft.rfft(frames * window, axis=1)) ** 2
    mel = mel_filters(512, 80).astype(np.float64) @ spec.T
    feats = np.log(mel + 2.0**-24)
    valid = len(x) // 160
    mean = feats[:, :valid].mean(axis=1, keepdims=True)
    std = feats[:, :valid].std(axis=1, ddof=1, keepdims=True) + 1e-5
    feats = (feats - mean) / std
    feats[:, valid:] = 0.0
    return feats


POINTS = [(0, 0), (3, 1), (10, 50), (25, 100), (40, 150), (60, 199), (79, 200), (79, 2999)]

x = signal(2 * SR)
out = {"filters400": {}, "whisper80": {}, "whisper128": {}, "fbank": {}, "fbankReflect": {}}
f400 = mel_filters(400, 80)
for m in [0, 1, 10, 40, 79]:
    for k in [int(np.argmax(f400[m])), int(np.argmax(f400[m])) + 1]:
        out["filters400"][f"{m},{k}"] = float(f400[m, k])
w80 = whisper_log_mel(x, 80)
w128 = whisper_log_mel(x, 128)
for m, t in POINTS:
    out["whisper80"][f"{m},{t}"] = float(w80[m, t])
    out["whisper128"][f"{m + 40},{t}"] = float(w128[m + 40, t])
out["whisper80Sum"] = float(w80.sum())
out["whisper128Sum"] = float(w128.sum())
fb = nemo_fbank(x)
fbr = nemo_fbank(x, "reflect")
for m, t in [(0, 0), (3, 1), (10, 50), (25, 100), (40, 150), (79, 199), (79, 200)]:
    out["fbank"][f"{m},{t}"] = float(fb[m, t])
    out["fbankReflect"][f"{m},{t}"] = float(fbr[m, t])
out["fbankSumAbs"] = float(np.abs(fb).sum())
out["fbankShape"] = list(fb.shape)
print(json.dumps(out, indent=1))
