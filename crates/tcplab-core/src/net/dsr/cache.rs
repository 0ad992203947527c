//! The route cache as a path cache (RFC 4728 §4.1): whole paths from this node, each of whose
//! prefixes is a route too. Two tiers as ns-2.35's `mobicache.cc`: routes this node discovered
//! or used (primary) and routes it overheard (secondary, promoted when used); each tier is
//! bounded and replaces its oldest path when full. A broken link cuts every path at that link
//! (ns-2 `noticeDeadLink`); with a timeout (RFC RouteCacheTimeout) a path unused that long goes.

use crate::packet::Addr;
use crate::time::SimTime;

#[derive(Clone, Debug)]
struct Entry {
    /// This node first, then each hop.
    path: Vec<Addr>,
    used: SimTime,
}

#[derive(Clone, Debug, Default)]
struct Tier {
    paths: Vec<Entry>,
    capacity: usize,
}

impl Tier {
    fn add(&mut self, path: &[Addr], now: SimTime) {
        if self.capacity == 0 {
            return;
        }
        // A path already held (or one this path extends) is refreshed, not duplicated.
        if let Some(e) = self.paths.iter_mut().find(|e| e.path.starts_with(path)) {
            e.used = now;
            return;
        }
        if let Some(e) = self.paths.iter_mut().find(|e| path.starts_with(&e.path)) {
            e.path = path.to_vec();
            e.used = now;
            return;
        }
        if self.paths.len() >= self.capacity {
            self.paths.remove(0); // the oldest goes
        }
        self.paths.push(Entry {
            path: path.to_vec(),
            used: now,
        });
    }

    /// (index, hops) of the shortest path reaching `dst`, the earliest held on a tie.
    fn find(&self, dst: Addr) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, e) in self.paths.iter().enumerate() {
            if let Some(k) = e.path.iter().position(|&a| a == dst) {
                if best.is_none_or(|b| k < b.1) {
                    best = Some((i, k));
                }
            }
        }
        best
    }

    fn cut(&mut self, a: Addr, b: Addr) -> bool {
        let mut cut = false;
        for e in &mut self.paths {
            if let Some(k) = e.path.windows(2).position(|w| w == [a, b]) {
                e.path.truncate(k + 1);
                cut = true;
            }
        }
        self.paths.retain(|e| e.path.len() > 1);
        cut
    }
}

#[derive(Clone, Debug)]
pub struct PathCache {
    primary: Tier,
    secondary: Tier,
    timeout: Option<SimTime>,
}

impl PathCache {
    pub fn new(primary: usize, secondary: usize, timeout: Option<SimTime>) -> PathCache {
        PathCache {
            primary: Tier {
                paths: Vec::new(),
                capacity: primary,
            },
            secondary: Tier {
                paths: Vec::new(),
                capacity: secondary,
            },
            timeout,
        }
    }

    /// Adds `path` (this node first). `used`: learned by this node's own discovery or use
    /// (primary); otherwise overheard (secondary, or primary when there is no secondary tier).
    pub fn add(&mut self, path: &[Addr], now: SimTime, used: bool) {
        if path.len() < 2 {
            return;
        }
        if used || self.secondary.capacity == 0 {
            self.primary.add(path, now);
        } else {
            self.secondary.add(path, now);
        }
    }

    /// The shortest cached route to `dst` (this node first, `dst` last); a secondary path
    /// used is promoted to the primary tier (ns-2 `MobiCache::findRoute`).
    pub fn find(&mut self, dst: Addr, now: SimTime) -> Option<Vec<Addr>> {
        self.expire(now);
        let p = self.primary.find(dst);
        let s = self.secondary.find(dst);
        let from_secondary = match (p, s) {
            (Some(p), Some(s)) => s.1 < p.1,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        let route = if from_secondary {
            let (i, k) = s.unwrap();
            let e = self.secondary.paths.remove(i);
            let r = e.path[..=k].to_vec();
            self.primary.add(&e.path, now);
            r
        } else {
            let (i, k) = p?;
            let e = &mut self.primary.paths[i];
            e.used = now;
            e.path[..=k].to_vec()
        };
        Some(route)
    }

    /// The shortest cached route to `dst` without using it (no promotion, no refresh): for
    /// answering another node's request or routing an error.
    pub fn peek(&self, dst: Addr, now: SimTime) -> Option<Vec<Addr>> {
        let alive = |e: &Entry| self.timeout.is_none_or(|t| e.used + t > now);
        let mut best: Option<&[Addr]> = None;
        for t in [&self.primary, &self.secondary] {
            for e in t.paths.iter().filter(|e| alive(e)) {
                if let Some(k) = e.path.iter().position(|&a| a == dst) {
                    if best.is_none_or(|b| k + 1 < b.len()) {
                        best = Some(&e.path[..=k]);
                    }
                }
            }
        }
        best.map(<[Addr]>::to_vec)
    }

    /// Whether a route to `dst` is cached (no promotion, no refresh).
    pub fn has(&self, dst: Addr, now: SimTime) -> bool {
        let alive = |e: &Entry| self.timeout.is_none_or(|t| e.used + t > now);
        [&self.primary, &self.secondary]
            .iter()
            .any(|t| t.paths.iter().any(|e| alive(e) && e.path.contains(&dst)))
    }

    /// Cuts every path at the link a → b (and b → a: links are used both ways). Returns
    /// whether any path used it.
    pub fn remove_link(&mut self, a: Addr, b: Addr) -> bool {
        let mut cut = false;
        for t in [&mut self.primary, &mut self.secondary] {
            cut |= t.cut(a, b);
            cut |= t.cut(b, a);
        }
        cut
    }

    fn expire(&mut self, now: SimTime) {
        if let Some(t) = self.timeout {
            for tier in [&mut self.primary, &mut self.secondary] {
                tier.paths.retain(|e| e.used + t > now);
            }
        }
    }

    /// For each node a held path reaches: its first hop and length on the shortest such path
    /// (as `peek` picks it, ignoring the timeout, which only `find` applies), by destination.
    pub fn first_hops(&self, own: Addr, out: &mut Vec<crate::net::RouteEntry>) {
        let mut best: std::collections::BTreeMap<Addr, (usize, Addr)> = Default::default();
        for t in [&self.primary, &self.secondary] {
            for e in &t.paths {
                for (k, &dst) in e.path.iter().enumerate().skip(1) {
                    if dst == own {
                        continue;
                    }
                    let cur = best.entry(dst).or_insert((k, e.path[1]));
                    if k < cur.0 {
                        *cur = (k, e.path[1]);
                    }
                }
            }
        }
        out.extend(
            best.into_iter()
                .map(|(dst, (k, next))| crate::net::RouteEntry {
                    dst,
                    next,
                    hops: k.min(u8::MAX as usize) as u8,
                }),
        );
    }

    pub fn len(&self) -> usize {
        self.primary.paths.len() + self.secondary.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_routes_and_a_broken_link_cuts_paths() {
        let mut c = PathCache::new(4, 0, None);
        let t = SimTime::ZERO;
        c.add(&[1, 2, 3, 4], t, true);
        assert_eq!(c.find(3, t), Some(vec![1, 2, 3]));
        c.add(&[1, 5, 4], t, true);
        assert_eq!(c.find(4, t), Some(vec![1, 5, 4]), "the shortest");
        assert!(c.remove_link(5, 4));
        assert_eq!(c.find(4, t), Some(vec![1, 2, 3, 4]));
        assert!(c.remove_link(3, 2), "either direction");
        assert_eq!(c.find(4, t), None);
        assert_eq!(c.find(2, t), Some(vec![1, 2]));
    }

    #[test]
    fn secondary_routes_are_promoted_and_old_paths_time_out() {
        let mut c = PathCache::new(1, 1, Some(SimTime::from_secs(10)));
        let t = SimTime::ZERO;
        c.add(&[1, 2], t, true);
        c.add(&[1, 3, 4], t, false);
        assert_eq!(c.find(4, t), Some(vec![1, 3, 4]));
        assert_eq!(c.secondary.paths.len(), 0);
        assert_eq!(c.primary.paths.len(), 1, "the primary tier's oldest went");
        assert_eq!(c.find(4, SimTime::from_secs(10)), None);
    }
}
