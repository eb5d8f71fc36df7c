//! GET/PUT ring arithmetic.
//!
//! A ring of `size` slots where the producer owns PUT and the consumer owns GET. One slot
//! is always kept empty so that `GET == PUT` means empty and never full. Indices are
//! untrusted when they come from shared memory: [`Ring::check`] rejects out-of-range ones.

/// A ring of `size` slots (indices `0..size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ring {
    size: u32,
}

impl Ring {
    /// The smallest ring: two slots, one usable.
    pub const TWO: Ring = Ring { size: 2 };

    /// A ring of `size` slots; `None` unless `size >= 2`.
    pub const fn new(size: u32) -> Option<Self> {
        if size < 2 { None } else { Some(Self { size }) }
    }
    /// Number of slots.
    pub const fn size(&self) -> u32 {
        self.size
    }
    /// Whether `idx` is a valid index.
    pub const fn check(&self, idx: u32) -> bool {
        idx < self.size
    }
    /// Slots holding data between `get` and `put`.
    pub const fn used(&self, get: u32, put: u32) -> u32 {
        (put % self.size + self.size - get % self.size) % self.size
    }
    /// Slots the producer may still fill (one is kept empty).
    pub const fn free(&self, get: u32, put: u32) -> u32 {
        self.size - 1 - self.used(get, put)
    }
    /// Nothing to consume.
    pub const fn is_empty(&self, get: u32, put: u32) -> bool {
        self.used(get, put) == 0
    }
    /// Nothing more can be produced.
    pub const fn is_full(&self, get: u32, put: u32) -> bool {
        self.free(get, put) == 0
    }
    /// `idx` advanced by `n` slots, wrapping.
    pub const fn advance(&self, idx: u32, n: u32) -> u32 {
        ((idx as u64 + n as u64) % self.size as u64) as u32
    }
    /// Slots from `idx` to the end of the ring (the largest contiguous span starting there).
    pub const fn until_wrap(&self, idx: u32) -> u32 {
        self.size - idx % self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slot_stays_empty() {
        let r = Ring::new(4).unwrap();
        assert!(r.is_empty(0, 0));
        assert_eq!(r.free(0, 0), 3);
        assert_eq!(r.free(0, 3), 0);
        assert!(r.is_full(0, 3));
        assert!(r.is_full(2, 1));
        assert_eq!(r.used(3, 1), 2);
        assert!(Ring::new(1).is_none());
    }

    #[test]
    fn wraps_and_free_space_is_consistent_everywhere() {
        let r = Ring::new(7).unwrap();
        for get in 0..7 {
            for put in 0..7 {
                assert_eq!(r.used(get, put) + r.free(get, put), 6);
                let n = r.free(get, put);
                let put2 = r.advance(put, n);
                assert!(r.is_full(get, put2), "get {get} put {put}");
            }
        }
        assert_eq!(r.advance(6, 1), 0);
        assert_eq!(r.advance(5, 9), 0);
        assert_eq!(r.until_wrap(5), 2);
        assert!(r.check(6) && !r.check(7));
        let big = Ring::new(u32::MAX).unwrap();
        assert_eq!(big.advance(u32::MAX - 1, 1), 0);
    }
}
