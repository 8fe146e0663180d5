/**
 * Exact FFTs for the ASR front ends. Whisper's STFT is a true 400-point DFT (torch.stft with
 * n_fft=400); zero-padding to 512 would change every bin, so sizes are not restricted to powers
 * of two. A complex mixed-radix Stockham FFT (radix 4, 2, 3, 5 butterflies plus a generic one for
 * other primes) handles any size; a real transform of even size n runs as a complex one of n/2
 * (400 → 200 = 4·2·5·5, 512 → 256 = 4⁴). Stockham's autosort form needs no bit-reversal pass.
 * Plans precompute twiddles and own their scratch buffers: create once, call per frame.
 */

interface Stage {
  /** Radix of this stage. */
  readonly p: number;
  /** Transform length before this stage (L); after it, L·p. */
  readonly l: number;
  /** Interleaved sub-sequences after this stage: n / (L·p). */
  readonly m: number;
  /** ω_{L·p}^{u·q} for u < L, 1 ≤ q < p, laid out [u][q-1]. */
  readonly twRe: Float64Array;
  readonly twIm: Float64Array;
}

/** An in-place forward complex DFT of a fixed size: X[k] = Σ x[j]·e^{-2πi·jk/n}. */
export interface ComplexFft {
  readonly size: number;
  forward(re: Float64Array, im: Float64Array): void;
}

/** A forward DFT of real input of a fixed size, giving bins 0..n/2. */
export interface RealFft {
  readonly size: number;
  /** n/2 + 1 (one-sided spectrum). */
  readonly bins: number;
  /** Spectrum of `input[0..n)` into `re`/`im` (length ≥ bins). */
  forward(input: ArrayLike<number>, re: Float64Array, im: Float64Array): void;
  /** |X[k]|² of `input[0..n)` into `out` (length ≥ bins). */
  power(input: ArrayLike<number>, out: Float64Array | Float32Array): void;
}

/** Radices in the order stages use them; anything left over is factored by trial division. */
function factorize(n: number): number[] {
  const factors: number[] = [];
  let rest = n;
  for (const p of [4, 2, 3, 5]) {
    while (rest % p === 0) {
      factors.push(p);
      rest /= p;
    }
  }
  for (let p = 7; rest > 1; p += 2) {
    while (rest % p === 0) {
      factors.push(p);
      rest /= p;
    }
  }
  return factors;
}

/** Plans a complex FFT of size `n` (any integer ≥ 1). */
export function createComplexFft(n: number): ComplexFft {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`FFT size must be a positive integer, got ${n}`);
  const stages: Stage[] = [];
  let l = 1;
  for (const p of factorize(n)) {
    const next = l * p;
    const twRe = new Float64Array(l * (p - 1));
    const twIm = new Float64Array(l * (p - 1));
    for (let u = 0; u < l; u++) {
      for (let q = 1; q < p; q++) {
        const angle = (-2 * Math.PI * u * q) / next;
        twRe[u * (p - 1) + q - 1] = Math.cos(angle);
        twIm[u * (p - 1) + q - 1] = Math.sin(angle);
      }
    }
    stages.push({ p, l, m: n / next, twRe, twIm });
    l = next;
  }
  const maxP = Math.max(1, ...stages.map((s) => s.p));
  const scratch = {
    re: new Float64Array(n),
    im: new Float64Array(n),
    aRe: new Float64Array(maxP),
    aIm: new Float64Array(maxP),
  };
  const generic = new Map<number, { re: Float64Array; im: Float64Array }>();
  for (const { p } of stages) {
    if (p > 5 && !generic.has(p)) {
      const re = new Float64Array(p);
      const im = new Float64Array(p);
      for (let k = 0; k < p; k++) {
        re[k] = Math.cos((-2 * Math.PI * k) / p);
        im[k] = Math.sin((-2 * Math.PI * k) / p);
      }
      generic.set(p, { re, im });
    }
  }

  return {
    size: n,
    forward(re, im) {
      let srcRe = re;
      let srcIm = im;
      let dstRe: Float64Array = scratch.re;
      let dstIm: Float64Array = scratch.im;
      for (const stage of stages) {
        runStage(stage, srcRe, srcIm, dstRe, dstIm, scratch.aRe, scratch.aIm, generic.get(stage.p));
        const tr = srcRe;
        const ti = srcIm;
        srcRe = dstRe;
        srcIm = dstIm;
        dstRe = tr;
        dstIm = ti;
      }
      if (srcRe !== re) {
        re.set(srcRe.subarray(0, n));
        im.set(srcIm.subarray(0, n));
      }
    },
  };
}

const C3 = -0.5;
const S3 = Math.sqrt(3) / 2;
const C51 = Math.cos((2 * Math.PI) / 5);
const C52 = Math.cos((4 * Math.PI) / 5);
const S51 = Math.sin((2 * Math.PI) / 5);
const S52 = Math.sin((4 * Math.PI) / 5);

/**
 * One Stockham stage: A'[u + L·s][v] = Σ_q ω_p^{s·q} · ω_{Lp}^{u·q} · A[u][v + M'·q], with A stored
 * [u][v] row-major (M = M'·p columns before, M' after).
 */
function runStage(
  stage: Stage,
  xr: Float64Array,
  xi: Float64Array,
  yr: Float64Array,
  yi: Float64Array,
  ar: Float64Array,
  ai: Float64Array,
  table: { re: Float64Array; im: Float64Array } | undefined,
): void {
  const { p, l, m, twRe, twIm } = stage;
  const mIn = m * p;
  for (let u = 0; u < l; u++) {
    const tw = u * (p - 1);
    const inBase = u * mIn;
    for (let v = 0; v < m; v++) {
      // Gather and twiddle the p inputs.
      ar[0] = xr[inBase + v]!;
      ai[0] = xi[inBase + v]!;
      for (let q = 1; q < p; q++) {
        const r = xr[inBase + v + m * q]!;
        const i = xi[inBase + v + m * q]!;
        const wr = twRe[tw + q - 1]!;
        const wi = twIm[tw + q - 1]!;
        ar[q] = r * wr - i * wi;
        ai[q] = r * wi + i * wr;
      }
      const out = u * m + v;
      const step = l * m;
      if (p === 4) {
        const t0r = ar[0]! + ar[2]!,
          t0i = ai[0]! + ai[2]!;
        const t1r = ar[0]! - ar[2]!,
          t1i = ai[0]! - ai[2]!;
        const t2r = ar[1]! + ar[3]!,
          t2i = ai[1]! + ai[3]!;
        const t3r = ar[1]! - ar[3]!,
          t3i = ai[1]! - ai[3]!;
        yr[out] = t0r + t2r;
        yi[out] = t0i + t2i;
        yr[out + step] = t1r + t3i;
        yi[out + step] = t1i - t3r;
        yr[out + 2 * step] = t0r - t2r;
        yi[out + 2 * step] = t0i - t2i;
        yr[out + 3 * step] = t1r - t3i;
        yi[out + 3 * step] = t1i + t3r;
      } else if (p === 2) {
        yr[out] = ar[0]! + ar[1]!;
        yi[out] = ai[0]! + ai[1]!;
        yr[out + step] = ar[0]! - ar[1]!;
        yi[out + step] = ai[0]! - ai[1]!;
      } else if (p === 3) {
        const sr = ar[1]! + ar[2]!,
          si = ai[1]! + ai[2]!;
        const tr = ar[0]! + C3 * sr,
          ti = ai[0]! + C3 * si;
        const ur = S3 * (ar[1]! - ar[2]!),
          ui = S3 * (ai[1]! - ai[2]!);
        yr[out] = ar[0]! + sr;
        yi[out] = ai[0]! + si;
        yr[out + step] = tr + ui;
        yi[out + step] = ti - ur;
        yr[out + 2 * step] = tr - ui;
        yi[out + 2 * step] = ti + ur;
      } else if (p === 5) {
        const s1r = ar[1]! + ar[4]!,
          s1i = ai[1]! + ai[4]!;
        const d1r = ar[1]! - ar[4]!,
          d1i = ai[1]! - ai[4]!;
        const s2r = ar[2]! + ar[3]!,
          s2i = ai[2]! + ai[3]!;
        const d2r = ar[2]! - ar[3]!,
          d2i = ai[2]! - ai[3]!;
        const r1r = ar[0]! + C51 * s1r + C52 * s2r,
          r1i = ai[0]! + C51 * s1i + C52 * s2i;
        const i1r = S51 * d1r + S52 * d2r,
          i1i = S51 * d1i + S52 * d2i;
        const r2r = ar[0]! + C52 * s1r + C51 * s2r,
          r2i = ai[0]! + C52 * s1i + C51 * s2i;
        const i2r = S52 * d1r - S51 * d2r,
          i2i = S52 * d1i - S51 * d2i;
        yr[out] = ar[0]! + s1r + s2r;
        yi[out] = ai[0]! + s1i + s2i;
        // b = r ∓ i·t: multiplying by -i maps (x, y) to (y, -x).
        yr[out + step] = r1r + i1i;
        yi[out + step] = r1i - i1r;
        yr[out + 4 * step] = r1r - i1i;
        yi[out + 4 * step] = r1i + i1r;
        yr[out + 2 * step] = r2r + i2i;
        yi[out + 2 * step] = r2i - i2r;
        yr[out + 3 * step] = r2r - i2i;
        yi[out + 3 * step] = r2i + i2r;
      } else {
        const wr = table!.re;
        const wi = table!.im;
        for (let s = 0; s < p; s++) {
          let sumR = 0;
          let sumI = 0;
          for (let q = 0; q < p; q++) {
            const k = (s * q) % p;
            sumR += ar[q]! * wr[k]! - ai[q]! * wi[k]!;
            sumI += ar[q]! * wi[k]! + ai[q]! * wr[k]!;
          }
          yr[out + s * step] = sumR;
          yi[out + s * step] = sumI;
        }
      }
    }
  }
}

/** Plans a real-input FFT of size `n` (even sizes take the half-size complex route). */
export function createRealFft(n: number): RealFft {
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`real FFT size must be an integer >= 2, got ${n}`);
  const bins = (n >> 1) + 1;
  const outRe = new Float64Array(bins);
  const outIm = new Float64Array(bins);
  const forward = n % 2 === 0 ? evenRealForward(n) : oddRealForward(n);
  return {
    size: n,
    bins,
    forward,
    power(input, out) {
      forward(input, outRe, outIm);
      for (let k = 0; k < bins; k++) out[k] = outRe[k]! * outRe[k]! + outIm[k]! * outIm[k]!;
    },
  };
}

/**
 * Packs x[2j] + i·x[2j+1] into a half-size complex FFT Z, then untangles:
 * X[k] = (Z[k] + conj Z[h-k])/2 + e^{-2πik/n} · (Z[k] - conj Z[h-k])/(2i), h = n/2.
 */
function evenRealForward(n: number): RealFft["forward"] {
  const h = n >> 1;
  const fft = createComplexFft(h);
  const zr = new Float64Array(h);
  const zi = new Float64Array(h);
  const cos = new Float64Array(h + 1);
  const sin = new Float64Array(h + 1);
  for (let k = 0; k <= h; k++) {
    cos[k] = Math.cos((2 * Math.PI * k) / n);
    sin[k] = Math.sin((2 * Math.PI * k) / n);
  }
  return (input, re, im) => {
    for (let j = 0; j < h; j++) {
      zr[j] = input[2 * j]!;
      zi[j] = input[2 * j + 1]!;
    }
    fft.forward(zr, zi);
    re[0] = zr[0]! + zi[0]!;
    im[0] = 0;
    re[h] = zr[0]! - zi[0]!;
    im[h] = 0;
    for (let k = 1; k < h; k++) {
      const ar = zr[k]!,
        ai = zi[k]!;
      const br = zr[h - k]!,
        bi = -zi[h - k]!; // conj Z[h-k]
      const er = 0.5 * (ar + br),
        ei = 0.5 * (ai + bi);
      const or = 0.5 * (ai - bi),
        oi = -0.5 * (ar - br); // (a - b) / (2i)
      re[k] = er + cos[k]! * or + sin[k]! * oi;
      im[k] = ei + cos[k]! * oi - sin[k]! * or;
    }
  };
}

function oddRealForward(n: number): RealFft["forward"] {
  const fft = createComplexFft(n);
  const zr = new Float64Array(n);
  const zi = new Float64Array(n);
  return (input, re, im) => {
    for (let j = 0; j < n; j++) zr[j] = input[j]!;
    zi.fill(0);
    fft.forward(zr, zi);
    for (let k = 0; k <= n >> 1; k++) {
      re[k] = zr[k]!;
      im[k] = zi[k]!;
    }
  };
}
