/** Inverse CDFs used to turn uniform hashes into shaped noise (one uniform per draw). */

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9).
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

function tail(q: number): number {
  return (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) /
    ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
}

/** Standard normal quantile for p in (0, 1). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1, got ${p}`);
  if (p < P_LOW) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - P_LOW) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) /
    (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1);
}

/**
 * Student-t quantile with 4 degrees of freedom, in closed form:
 * t = sign(p - 1/2) * 2 * sqrt(q - 1), q = cos(acos(sqrt(a)) / 3) / sqrt(a), a = 4p(1 - p).
 * Variance is 2; callers scale by 1/sqrt(2) for unit variance.
 */
export function studentT4Quantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentT4Quantile needs 0 < p < 1, got ${p}`);
  const a = 4 * p * (1 - p);
  const sqrtA = Math.sqrt(a);
  const q = Math.cos(Math.acos(sqrtA) / 3) / sqrtA;
  const magnitude = 2 * Math.sqrt(Math.max(0, q - 1));
  return p < 0.5 ? -magnitude : magnitude;
}
