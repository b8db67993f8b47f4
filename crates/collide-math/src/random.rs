use glam::Vec3;

/// A small, fast, seeded random number generator (SplitMix64).
///
/// Every scene in collide is built from a seed so that runs, tests and benchmarks repeat exactly; this is the
/// one generator they share. It is not cryptographic. SplitMix64 passes BigCrush, needs 8 bytes of state and
/// costs a handful of instructions per number, which matters when a million bodies are spawned.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator from a seed; equal seeds give equal sequences.
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)`, from the top 24 bits so every value is exactly representable.
    #[inline]
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// A uniform float in `[lo, hi)`.
    #[inline]
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// A uniform integer in `[0, n)` (`n > 0`), by Lemire's multiply-shift (bias below 2⁻³² for our sizes).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u64() as u32) * u64::from(n)) >> 32) as u32
    }

    /// `true` with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f32) -> bool {
        self.next_f32() < p
    }

    /// A uniform point in the box `[lo, hi)`.
    #[inline]
    pub fn point_in(&mut self, lo: Vec3, hi: Vec3) -> Vec3 {
        Vec3::new(self.range_f32(lo.x, hi.x), self.range_f32(lo.y, hi.y), self.range_f32(lo.z, hi.z))
    }

    /// A uniformly distributed unit vector (Marsaglia's method: the z and the angle are uniform).
    #[inline]
    pub fn unit_vector(&mut self) -> Vec3 {
        let z = self.range_f32(-1.0, 1.0);
        let phi = self.range_f32(0.0, std::f32::consts::TAU);
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vec3::new(r * phi.cos(), r * phi.sin(), z)
    }

    /// A standard normal sample (Box–Muller; one of the pair is dropped for simplicity).
    #[inline]
    pub fn normal(&mut self) -> f32 {
        let u1 = self.next_f32().max(f32::MIN_POSITIVE);
        let u2 = self.next_f32();
        (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests;
