//! Random streams. Every component draws from its own stream derived from (run seed, component
//! id), so adding a flow or a link never perturbs the randomness another component sees.
//!
//! The generator is xoshiro256** seeded through SplitMix64 (Blackman & Vigna), small, fast and
//! of ample quality for simulation; it is written here so the stream is fixed by this crate's
//! version, not by a dependency's.

/// Identifies the owner of a random stream. The kinds keep ids of different arenas apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamId {
    Link { link: u32, dir: u8, purpose: u8 },
    Tcp { flow: u32, end: u8 },
    App { flow: u32 },
    Custom(u64),
}

impl StreamId {
    fn key(self) -> u64 {
        match self {
            StreamId::Link { link, dir, purpose } => {
                (1u64 << 60) | ((link as u64) << 16) | ((dir as u64) << 8) | purpose as u64
            }
            StreamId::Tcp { flow, end } => (2u64 << 60) | ((flow as u64) << 8) | end as u64,
            StreamId::App { flow } => (3u64 << 60) | flow as u64,
            StreamId::Custom(k) => (4u64 << 60) ^ k,
        }
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream of component `id` in a run with seed `seed`.
    pub fn derive(seed: u64, id: StreamId) -> Rng {
        let mut sm = seed ^ id.key().wrapping_mul(0xD134_2543_DE82_EF95);
        // Mix twice so that nearby (seed, id) pairs start far apart.
        let _ = splitmix64(&mut sm);
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a1: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::derive(7, StreamId::App { flow: 0 });
                move |_| r.next_u64()
            })
            .collect();
        let a2: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::derive(7, StreamId::App { flow: 0 });
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::derive(7, StreamId::App { flow: 1 });
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
    }

    #[test]
    fn uniform_mean_is_half() {
        let mut r = Rng::derive(1, StreamId::Custom(3));
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "{m}");
    }
}
