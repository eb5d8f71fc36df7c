//! The 64-bit barrier object of PTX `mbarrier` (in shared memory, its layout rgdev's own):
//! pending arrivals of the current phase in bits 31:0, the arrivals each phase expects in
//! 62:32, the phase's parity in 63. `init(n)` is `n | n << 32`; an arrive returns the word
//! before it (the "state" token); a phase is complete when the parity differs from the
//! token's.

/// The object `mbarrier.init` makes for `count` arrivals.
pub const fn init(count: u32) -> u64 {
    (count as u64 & 0x7FFF_FFFF) << 32 | count as u64
}
/// The object after `n` arrivals (`drop`: they also leave the expected count).
pub const fn arrive(old: u64, n: u64, drop: bool) -> u64 {
    let phase = old & 1 << 63;
    let mut expected = old >> 32 & 0x7FFF_FFFF;
    if drop {
        expected = expected.saturating_sub(n);
    }
    let pending = (old & 0xFFFF_FFFF).saturating_sub(n);
    if pending == 0 { (phase ^ 1 << 63) | expected << 32 | expected } else { phase | expected << 32 | pending }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbarrier_phases() {
        let b = init(3);
        let (b1, b2) = (arrive(b, 1, false), arrive(arrive(b, 1, false), 1, false));
        assert_eq!(b1 >> 63, 0);
        assert_eq!(b2 & 0xFFFF_FFFF, 1);
        let done = arrive(b2, 1, false);
        assert_eq!(
            (done >> 63, done & 0xFFFF_FFFF, done >> 32 & 0x7FFF_FFFF),
            (1, 3, 3),
            "phase flips, count restored"
        );
        // Dropping leaves the next phases expecting fewer.
        let d = arrive(init(2), 1, true);
        assert_eq!((d >> 63, d & 0xFFFF_FFFF), (0, 1));
        let d = arrive(d, 1, false);
        assert_eq!((d >> 63, d & 0xFFFF_FFFF), (1, 1));
        // More arrivals than pending (undefined in PTX) complete the phase, never wrap.
        assert_eq!(arrive(init(1), 5, false) >> 63, 1);
    }
}
