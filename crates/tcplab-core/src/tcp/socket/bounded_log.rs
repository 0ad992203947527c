//! A log that keeps its first entries and counts the rest, for per-event records a long run could
//! otherwise grow without limit (Vegas's fine-grained retransmissions: one per loss on a lossy path).

/// The first `cap` entries, in order, and how many were pushed in all.
#[derive(Debug, Clone)]
pub(crate) struct BoundedLog<T> {
    kept: Vec<T>,
    cap: usize,
    total: u64,
}

impl<T> BoundedLog<T> {
    pub(crate) fn new(cap: usize) -> Self {
        BoundedLog {
            kept: Vec::new(),
            cap,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, entry: T) {
        self.total += 1;
        if self.kept.len() < self.cap {
            self.kept.push(entry);
        }
    }

    /// The first entries (at most the cap).
    pub(crate) fn first(&self) -> &[T] {
        &self.kept
    }

    /// Every entry pushed, kept or not.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::BoundedLog;

    #[test]
    fn keeps_the_first_entries_and_counts_every_one() {
        let mut log = BoundedLog::new(3);
        for i in 0..10_000u32 {
            log.push(i);
        }
        assert_eq!(log.first(), [0, 1, 2]);
        assert_eq!(log.total(), 10_000);
        assert!(log.kept.capacity() < 100, "memory stays bounded");
    }
}
