//! The ACK-release schedule of seed 001 (Bhutani, "A Near-Optimal Scheme for TCP ACK Pacing to
//! Maintain Throughput in Wireless Networks", §V).
//!
//! A base station holding N ACKs during a predicted outage of T seconds releases them so that the
//! fixed host (FH) never times out and its RTO ends small. Phase 1 releases n ACKs, each as late as
//! the FH's RTO allows (x_i = RTO_{i−1}); phase 2 spaces the other N − n at θ = (T − S(n))/(N − n).
//! The FH's estimator is Jacobson's (eqs. 1–4): δ = x − μ, μ += δ/8, σ += (|δ| − σ)/4,
//! RTO = μ + 4σ, where x is the RTT sample the FH takes from each released ACK — by construction
//! the inter-ACK gap.
//!
//! The paper picks n by a forward search that stops at the first local minimum of RTO_N(n). Taken
//! literally that search stops at n = 0 for its own Fig. 2 parameters, where θ = T/N far exceeds
//! the FH's RTO and the FH would time out on the first gap (constraint 2 of §III). So this module
//! offers both: [`paper_search`] (literal) and [`best_feasible`] (the minimum of RTO_N(n) over the
//! n whose every gap stays within the RTO the FH has at that moment), which the ACK holder uses.
//! See docs/models/ack_holding.md.

/// The inputs of the schedule: outage T (s), number of held ACKs N, the FH's current smoothed RTT
/// μ0 and deviation σ0 (s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub t: f64,
    pub n_acks: usize,
    pub mu0: f64,
    pub sigma0: f64,
}

/// The FH's RTO estimator as the schedule models it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Estimator {
    /// Eqs. (1)–(4) exactly: RTO = μ + 4σ.
    Pure,
    /// A real RFC 6298 sender: RTO = max(min, min(max, μ + max(G, 4σ))).
    Clamped {
        min: f64,
        max: f64,
        granularity: f64,
    },
}

impl Estimator {
    pub fn rto(&self, mu: f64, sigma: f64) -> f64 {
        match *self {
            Estimator::Pure => mu + 4.0 * sigma,
            Estimator::Clamped {
                min,
                max,
                granularity,
            } => (mu + (4.0 * sigma).max(granularity)).clamp(min, max),
        }
    }
}

/// One step of Jacobson's filter with sample `x` (eqs. 1–3).
#[inline]
pub fn jacobson_step(mu: f64, sigma: f64, x: f64) -> (f64, f64) {
    let d = x - mu;
    (mu + d / 8.0, sigma + (d.abs() - sigma) / 4.0)
}

const A: f64 = 7.0 / 4.0;

/// Eq. (5): σ_n = (7/4)^n σ0.
pub fn sigma_n(p: &Params, n: usize) -> f64 {
    A.powi(n as i32) * p.sigma0
}

/// Eq. (6): μ_n = μ0 + (2/3)σ0[(7/4)^n − 1].
pub fn mu_n(p: &Params, n: usize) -> f64 {
    p.mu0 + 2.0 / 3.0 * p.sigma0 * (A.powi(n as i32) - 1.0)
}

/// Eq. (7): RTO_n = μ0 + σ0[(14/3)(7/4)^n − 2/3].
pub fn rto_n(p: &Params, n: usize) -> f64 {
    p.mu0 + p.sigma0 * (14.0 / 3.0 * A.powi(n as i32) - 2.0 / 3.0)
}

/// Eq. (8): S(n) = Σ_{i<n} RTO_i = nμ0 + σ0{(56/9)[(7/4)^n − 1] − 2n/3}.
pub fn s_n(p: &Params, n: usize) -> f64 {
    let nf = n as f64;
    nf * p.mu0 + p.sigma0 * (56.0 / 9.0 * (A.powi(n as i32) - 1.0) - 2.0 * nf / 3.0)
}

/// θ(n) = (T − S(n))/(N − n); None when phase 1 alone would exceed T or leave no ACK for phase 2.
pub fn theta(p: &Params, n: usize) -> Option<f64> {
    if n >= p.n_acks {
        return None;
    }
    let th = (p.t - s_n(p, n)) / (p.n_acks - n) as f64;
    (th > 0.0).then_some(th)
}

/// Eqs. (9)–(11): μ_N(n), σ_N(n) and RTO_N(n). The paper's inline expression for σ_{n+i} drops
/// the σ_n factor of its first term; eq. (10), used here, has it.
pub fn final_state(p: &Params, n: usize) -> Option<(f64, f64, f64)> {
    let th = theta(p, n)?;
    let k = (p.n_acks - n) as i32;
    let (a, b) = ((7.0f64 / 8.0).powi(k), (3.0f64 / 4.0).powi(k));
    let (mu, sg) = (mu_n(p, n), sigma_n(p, n));
    let mu_f = a * mu + (1.0 - a) * th;
    let sg_f = b * sg + 2.0 * (a - b) * (mu - th).abs();
    Some((mu_f, sg_f, mu_f + 4.0 * sg_f))
}

/// RTO_N(n) of eq. (11).
pub fn rto_final(p: &Params, n: usize) -> Option<f64> {
    final_state(p, n).map(|s| s.2)
}

/// The paper's forward search (§V pseudo-code), taken literally: stop at the first n where
/// RTO_N(n) is no larger than its neighbours.
pub fn paper_search(p: &Params) -> usize {
    let f = |n: usize| rto_final(p, n).unwrap_or(f64::INFINITY);
    let mut n = 0;
    let (mut prev, mut curr, mut next) = (f(0), f(0), f(1));
    while n + 1 < p.n_acks {
        if curr <= prev && curr <= next {
            break;
        }
        n += 1;
        prev = curr;
        curr = next;
        next = f(n + 1);
    }
    n
}

/// The inter-ACK gaps x_1..x_N of the schedule with n phase-1 ACKs under `est`. Phase 1 waits the
/// FH's current RTO; phase 2 splits what is left of T evenly. None if phase 1 overruns T.
pub fn gaps(p: &Params, n: usize, est: Estimator) -> Option<Vec<f64>> {
    gaps_guarded(p, n, est, 0.0)
}

/// [`gaps`] with phase-1 ACKs released a fraction `guard` before the RTO expires, so that they
/// reach the FH before its timer fires despite the last hop's delay and timer rounding.
pub fn gaps_guarded(p: &Params, n: usize, est: Estimator, guard: f64) -> Option<Vec<f64>> {
    if n >= p.n_acks {
        return None;
    }
    let (mut mu, mut sg) = (p.mu0, p.sigma0);
    let mut x = Vec::with_capacity(p.n_acks);
    for _ in 0..n {
        let g = est.rto(mu, sg) * (1.0 - guard);
        x.push(g);
        (mu, sg) = jacobson_step(mu, sg, g);
    }
    let used: f64 = x.iter().sum();
    let th = (p.t - used) / (p.n_acks - n) as f64;
    if th <= 0.0 {
        return None;
    }
    x.extend(std::iter::repeat_n(th, p.n_acks - n));
    Some(x)
}

/// The FH's (μ, σ, RTO) after each released ACK, starting from (μ0, σ0): entry i is the state
/// after sample x_i; entry 0 is the initial state.
pub fn replay(p: &Params, x: &[f64], est: Estimator) -> Vec<(f64, f64, f64)> {
    let (mut mu, mut sg) = (p.mu0, p.sigma0);
    let mut out = vec![(mu, sg, est.rto(mu, sg))];
    for &g in x {
        (mu, sg) = jacobson_step(mu, sg, g);
        out.push((mu, sg, est.rto(mu, sg)));
    }
    out
}

/// True if no gap exceeds the RTO the FH has when the gap starts (up to a relative tolerance for
/// phase 1's gaps, which equal it by construction).
pub fn feasible(p: &Params, x: &[f64], est: Estimator) -> bool {
    let states = replay(p, x, est);
    x.iter()
        .zip(&states)
        .all(|(&g, s)| g <= s.2 * (1.0 + 1e-12))
}

/// A chosen schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub n: usize,
    pub gaps: Vec<f64>,
    /// The FH's RTO after the last ACK.
    pub final_rto: f64,
}

/// The n minimising the final RTO among schedules whose every gap fits within the FH's RTO at the
/// time (constraint 2), under `est`. None if no n is feasible (T too long for N ACKs).
pub fn best_feasible(p: &Params, est: Estimator) -> Option<Schedule> {
    best_feasible_guarded(p, est, 0.0)
}

/// [`best_feasible`] over guarded schedules; feasibility keeps every gap within
/// (1 − guard)·RTO.
pub fn best_feasible_guarded(p: &Params, est: Estimator, guard: f64) -> Option<Schedule> {
    let mut best: Option<Schedule> = None;
    for n in 0..p.n_acks {
        let Some(x) = gaps_guarded(p, n, est, guard) else {
            break;
        };
        let states = replay(p, &x, est);
        if !x
            .iter()
            .zip(&states)
            .all(|(&g, s)| g <= s.2 * (1.0 - guard) * (1.0 + 1e-12))
        {
            continue;
        }
        let final_rto = states.last().map(|s| s.2).unwrap_or(f64::INFINITY);
        if best.as_ref().is_none_or(|b| final_rto < b.final_rto) {
            best = Some(Schedule {
                n,
                gaps: x,
                final_rto,
            });
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIG2: Params = Params {
        t: 1000.0,
        n_acks: 30,
        mu0: 1.0,
        sigma0: 0.3,
    };

    #[test]
    fn phase_one_closed_forms_match_the_replay() {
        for n in 0..=15 {
            let x = gaps(&Params { t: 1e9, ..FIG2 }, n, Estimator::Pure).unwrap();
            let s = replay(&FIG2, &x[..n], Estimator::Pure);
            let (mu, sg, rto) = s[n];
            assert!((mu - mu_n(&FIG2, n)).abs() < 1e-9, "μ_{n}");
            assert!((sg - sigma_n(&FIG2, n)).abs() < 1e-9, "σ_{n}");
            assert!((rto - rto_n(&FIG2, n)).abs() < 1e-9, "RTO_{n}");
            let sum: f64 = x[..n].iter().sum();
            assert!((sum - s_n(&FIG2, n)).abs() < 1e-9, "S({n})");
        }
        // The paper's worked values: RTO_1 = μ0 + 7.5σ0, μ_2 = μ0 + 11/8 σ0, RTO_2 = μ0 + 109/8 σ0.
        assert!((rto_n(&FIG2, 1) - (1.0 + 7.5 * 0.3)).abs() < 1e-12);
        assert!((mu_n(&FIG2, 2) - (1.0 + 11.0 / 8.0 * 0.3)).abs() < 1e-12);
        assert!((rto_n(&FIG2, 2) - (1.0 + 109.0 / 8.0 * 0.3)).abs() < 1e-12);
    }

    #[test]
    fn final_closed_forms_match_the_replay() {
        for p in [
            FIG2,
            Params {
                t: 500.0,
                n_acks: 20,
                ..FIG2
            },
            Params {
                t: 250.0,
                n_acks: 20,
                ..FIG2
            },
        ] {
            for n in 0..p.n_acks {
                let Some(x) = gaps(&p, n, Estimator::Pure) else {
                    break;
                };
                let (mu, sg, rto) = *replay(&p, &x, Estimator::Pure).last().unwrap();
                let (cmu, csg, crto) = final_state(&p, n).unwrap();
                assert!(
                    (mu - cmu).abs() < 1e-9 && (sg - csg).abs() < 1e-9 && (rto - crto).abs() < 1e-9,
                    "n = {n}"
                );
            }
        }
    }

    #[test]
    fn phase_two_gap_is_the_papers_theta() {
        // θ = (T − S(n))/(N − n) with S(n) from eq. (8)'s closed form, not from the gaps
        // themselves; for n = 0 it is T/N.
        assert!((theta(&FIG2, 0).unwrap() - 1000.0 / 30.0).abs() < 1e-12);
        for n in 0..12 {
            let x = gaps(&FIG2, n, Estimator::Pure).unwrap();
            assert_eq!(x.len(), 30);
            let th = theta(&FIG2, n).unwrap();
            assert!(x[n..].iter().all(|&g| (g - th).abs() < 1e-9), "n = {n}");
        }
    }

    #[test]
    fn literal_search_stops_at_zero_for_fig2_and_that_schedule_times_out() {
        // RTO_N(1) > RTO_N(0): the published search stops at n = 0 ...
        assert!(rto_final(&FIG2, 1).unwrap() > rto_final(&FIG2, 0).unwrap());
        assert_eq!(paper_search(&FIG2), 0);
        // ... where every gap is T/N = 33.3 s against an FH RTO of μ0 + 4σ0 = 2.2 s.
        let x = gaps(&FIG2, 0, Estimator::Pure).unwrap();
        assert!(!feasible(&FIG2, &x, Estimator::Pure));
    }

    /// A small case worked by hand (eqs. 1–4, all values exact in binary): μ0 = 1, σ0 = 1/4,
    /// N = 3, so RTO0 = 2, and after phase-1 gaps of 2 and 2.875 the RTO is 2.875 then 4.40625.
    const SMALL: Params = Params {
        t: 9.0,
        n_acks: 3,
        mu0: 1.0,
        sigma0: 0.25,
    };

    #[test]
    fn best_feasible_takes_the_only_feasible_n() {
        // T = 9: n = 0 gives θ = 3 > RTO0 = 2 and n = 1 gives θ = 3.5 > RTO1 = 2.875; only n = 2
        // fits (θ = 4.125 ≤ 4.40625). Last sample 4.125: μ = 1.69140625, σ = 1.26953125.
        let s = best_feasible(&SMALL, Estimator::Pure).unwrap();
        assert_eq!(s.n, 2);
        assert_eq!(s.gaps, vec![2.0, 2.875, 4.125]);
        assert_eq!(s.final_rto, 1.69140625 + 4.0 * 1.26953125);
        // T = 10: θ(2) = 5.125 exceeds 4.40625, nothing fits.
        assert_eq!(
            best_feasible(&Params { t: 10.0, ..SMALL }, Estimator::Pure),
            None
        );
    }

    #[test]
    fn best_feasible_takes_the_smallest_final_rto_not_the_first_feasible_n() {
        // T = 7.5: n = 1 fits (gaps 2, 2.75, 2.75; RTO 2.875 then 4.265625) and ends at
        // 1.505859375 + 4·0.90625 = 5.130859375; n = 2 fits (gaps 2, 2.875, 2.625) and ends at
        // 1.50390625 + 4·0.89453125 = 5.08203125, the smaller.
        let p = Params { t: 7.5, ..SMALL };
        let s = best_feasible(&p, Estimator::Pure).unwrap();
        assert_eq!((s.n, s.final_rto), (2, 1.50390625 + 4.0 * 0.89453125));
        assert_eq!(s.gaps, vec![2.0, 2.875, 2.625]);
        assert_eq!(rto_final(&p, 1), Some(1.505859375 + 4.0 * 0.90625));
    }

    #[test]
    fn best_feasible_schedule_for_fig2_matches_the_closed_form() {
        let s = best_feasible(&FIG2, Estimator::Pure).expect("a feasible schedule exists");
        // Its final RTO is eq. (11)'s at the chosen n, and its gaps fit the FH's RTO.
        assert!((s.final_rto - rto_final(&FIG2, s.n).unwrap()).abs() < 1e-9);
        assert!(feasible(&FIG2, &s.gaps, Estimator::Pure));
        eprintln!(
            "Fig. 2 parameters: feasible optimum n = {}, final RTO {:.3} s, θ = {:.3} s",
            s.n, s.final_rto, s.gaps[29]
        );
    }

    #[test]
    fn guard_releases_phase_one_early_and_keeps_phase_two_within_it() {
        // With a 10 % guard the phase-1 gaps are 0.9·RTO: 1.8, then (μ 1.1, σ 0.3875,
        // RTO 2.65) 2.385.
        let x = gaps_guarded(&SMALL, 2, Estimator::Pure, 0.1).unwrap();
        assert!(
            (x[0] - 1.8).abs() < 1e-12 && (x[1] - 2.385).abs() < 1e-12,
            "{x:?}"
        );
        // Unguarded, n = 2 fits (above); guarded, θ = 9 − 4.185 = 4.815 exceeds 0.9·RTO2 =
        // 0.9·3.708125, and n = 0, 1 do not fit either: the guarded search finds nothing.
        assert_eq!(best_feasible_guarded(&SMALL, Estimator::Pure, 0.1), None);
    }

    #[test]
    fn clamped_estimator_caps_phase_one_at_the_maximum_rto() {
        let est = Estimator::Clamped {
            min: 0.2,
            max: 60.0,
            granularity: 0.01,
        };
        let x = gaps(&Params { t: 1e6, ..FIG2 }, 12, est).unwrap();
        assert!(x[..12].iter().all(|&g| g <= 60.0));
        assert_eq!(x[11], 60.0);
    }

    /// Seed 001 §V's forward search walks n up while RTO_N(n) falls and stops at its first local
    /// minimum (here n = 2 of RTO_N = 2.99, 2.82, 2.42, 6.45, …), or at n = N − 1, the last n that
    /// leaves an ACK for phase 2, when RTO_N falls all the way.
    #[test]
    fn literal_search_walks_to_the_first_local_minimum_of_the_final_rto() {
        let p = Params {
            t: 10.0,
            n_acks: 6,
            ..SMALL
        };
        let r: Vec<f64> = (0..4).map(|n| rto_final(&p, n).unwrap()).collect();
        assert!(r[0] > r[1] && r[1] > r[2] && r[2] < r[3], "{r:?}");
        assert_eq!(paper_search(&p), 2);
        let p = Params {
            t: 3.5,
            n_acks: 2,
            ..SMALL
        };
        assert!(rto_final(&p, 1).unwrap() < rto_final(&p, 0).unwrap());
        assert_eq!(paper_search(&p), 1);
    }

    /// θ(n) = (T − S(n))/(N − n) is a schedule only if phase 1 leaves phase 2 both an ACK
    /// (n < N) and time (θ > 0). SMALL's phase 1 of two ACKs takes S(2) = 2 + 2.875 = 4.875 s.
    #[test]
    fn no_schedule_when_phase_one_takes_every_ack_or_all_the_time() {
        let pure = Estimator::Pure;
        assert_eq!((theta(&SMALL, 3), gaps(&SMALL, 3, pure)), (None, None));
        let p = Params { t: 4.875, ..SMALL };
        assert_eq!((theta(&p, 2), gaps(&p, 2, pure)), (None, None));
        assert_eq!(final_state(&p, 2), None);
        let p = Params { t: 5.0, ..SMALL };
        assert_eq!(theta(&p, 2), Some(0.125));
        assert_eq!(gaps(&p, 2, pure), Some(vec![2.0, 2.875, 0.125]));
    }

    /// The n of least final RTO, and on a tie the first such n, as the forward search of §V
    /// would take it: with a clamped estimator every short schedule below ends at the minimum RTO
    /// (0.2 s), so no phase-1 ACK is spent.
    #[test]
    fn ties_in_the_final_rto_go_to_the_fewest_phase_one_acks() {
        let est = Estimator::Clamped {
            min: 0.2,
            max: 60.0,
            granularity: 0.01,
        };
        let p = Params {
            t: 1.0,
            n_acks: 10,
            mu0: 0.1,
            sigma0: 0.01,
        };
        for n in 0..3 {
            let x = gaps_guarded(&p, n, est, 0.1).unwrap();
            assert_eq!(replay(&p, &x, est).last().unwrap().2, 0.2, "n = {n}");
        }
        let s = best_feasible_guarded(&p, est, 0.1).unwrap();
        assert_eq!((s.n, s.final_rto), (0, 0.2));
    }

    /// Constraint 2 of seed 001 §III: a schedule is feasible only if no gap exceeds the RTO the
    /// FH has when the gap starts; a gap equal to it passes (phase 1 waits exactly that long).
    /// SMALL: RTO0 = 2, then after a 2 s gap 2.875.
    #[test]
    fn a_gap_longer_than_the_fhs_rto_at_its_start_is_infeasible() {
        let pure = Estimator::Pure;
        assert!(feasible(&SMALL, &[2.0, 2.875, 1.0], pure));
        assert!(
            !feasible(&SMALL, &[2.5, 1.0, 1.0], pure),
            "first gap 0.5 s over"
        );
        assert!(
            !feasible(&SMALL, &[2.0, 3.0, 1.0], pure),
            "second gap 0.125 s over"
        );
    }

    /// Eqs. (5)–(8) hold for any μ0 and σ0, not only the worked examples' μ0 = 1 s (where a
    /// product and a quotient by μ0 agree).
    #[test]
    fn phase_one_closed_forms_hold_for_any_initial_estimate() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        for (mu0, sigma0) in [(0.5, 0.1), (0.12, 0.03), (2.5, 0.4)] {
            let p = Params {
                t: 1e9,
                n_acks: 11,
                mu0,
                sigma0,
            };
            let x = gaps(&p, 10, Estimator::Pure).unwrap();
            let states = replay(&p, &x[..10], Estimator::Pure);
            for (n, &(mu, sg, rto)) in states.iter().enumerate() {
                assert!(close(mu, mu_n(&p, n)), "μ_{n} for μ0 = {mu0}");
                assert!(close(sg, sigma_n(&p, n)), "σ_{n} for μ0 = {mu0}");
                assert!(close(rto, rto_n(&p, n)), "RTO_{n} for μ0 = {mu0}");
                let sum: f64 = x[..n].iter().sum();
                assert!(close(sum, s_n(&p, n)), "S({n}) for μ0 = {mu0}");
            }
        }
    }

    /// With a guard, constraint 2 keeps every gap within (1 − guard)·RTO at its start: for SMALL
    /// with T = 6.5 s and a 10 % guard, θ = T/3 ≈ 2.17 s exceeds 0.9·RTO0 = 1.8 s, so a schedule
    /// without phase 1 is out, and the least final RTO is n = 2's (gaps 1.8, 2.385, 2.315).
    #[test]
    fn the_guarded_search_keeps_every_gap_within_the_guarded_rto() {
        let p = Params { t: 6.5, ..SMALL };
        let s = best_feasible_guarded(&p, Estimator::Pure, 0.1).unwrap();
        assert_eq!(s.n, 2);
        let states = replay(&p, &s.gaps, Estimator::Pure);
        let within = s
            .gaps
            .iter()
            .zip(&states)
            .all(|(&g, st)| g <= 0.9 * st.2 + 1e-12);
        assert!(within, "{:?}", s.gaps);
    }
}
