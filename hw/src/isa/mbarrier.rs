//! The 64-bit barrier object of PTX `mbarrier` (in shared memory, its layout rgdev's own):
//! pending arrivals of the current phase in bits 19:0, the arrivals each phase expects in
//! 39:20, the phase's pending transaction count (bytes, two's complement) in 60:40, the
//! phase's parity in 63. `init(n)` expects `n` arrivals and no transactions; an arrive
//! returns the word before it (the "state" token); a phase is complete when the parity
//! differs from the token's. A phase completes when no arrival is pending and its
//! transaction count is zero (sm_90's `expect_tx` raises it, `complete_tx` lowers it), and
//! the next phase expects the arrivals again, with no transactions. PTX allows counts up to
//! 2^20 - 1 and transaction counts within +-(2^20 - 1).

const COUNT: u64 = (1 << 20) - 1;
const TX_SHIFT: u32 = 40;
const TX_BITS: u64 = (1 << 21) - 1;
const PHASE: u64 = 1 << 63;

/// The most arrivals a phase may expect (`__mbarrier_maximum_count`).
pub const MAX_COUNT: u32 = COUNT as u32;

/// The object `mbarrier.init` makes for `count` arrivals.
pub const fn init(count: u32) -> u64 {
    let n = count as u64 & COUNT;
    n << 20 | n
}

/// Pending arrivals of a token (`mbarrier.pending_count`).
pub const fn pending(token: u64) -> u32 {
    (token & COUNT) as u32
}

/// The phase's pending transaction count.
pub const fn tx(word: u64) -> i32 {
    let t = (word >> TX_SHIFT & TX_BITS) as u32;
    ((t << 11) as i32) >> 11
}

/// The word with `pending` arrivals and `tx` bytes outstanding: the phase completed (parity
/// flipped, arrivals expected again, no transactions) when both are zero.
const fn settle(old: u64, expected: u64, pending: u64, tx: i64) -> u64 {
    let phase = old & PHASE;
    if pending == 0 && tx == 0 {
        return (phase ^ PHASE) | expected << 20 | expected;
    }
    let t = (tx as u64) & TX_BITS;
    phase | t << TX_SHIFT | expected << 20 | pending
}

fn fields(old: u64) -> (u64, u64, i64) {
    (old >> 20 & COUNT, old & COUNT, tx(old) as i64)
}

/// The object after `n` arrivals (`drop`: they also leave the expected count).
pub fn arrive(old: u64, n: u64, drop: bool) -> u64 {
    let (mut expected, pending, t) = fields(old);
    if drop {
        expected = expected.saturating_sub(n);
    }
    settle(old, expected, pending.saturating_sub(n), t)
}

/// The object after `bytes` more transactions are expected of the current phase
/// (`mbarrier.expect_tx`), within the count's range.
pub fn expect_tx(old: u64, bytes: u64) -> u64 {
    let (expected, pending, t) = fields(old);
    let t = (t + (bytes & COUNT) as i64).min(COUNT as i64);
    settle(old, expected, pending, t)
}

/// The object after `bytes` of transactions have completed (`mbarrier.complete_tx`, and
/// the `complete_tx` of a bulk copy): the phase completes if nothing else is pending.
pub fn complete_tx(old: u64, bytes: u64) -> u64 {
    let (expected, pending, t) = fields(old);
    let t = (t - (bytes & COUNT) as i64).max(-(COUNT as i64));
    settle(old, expected, pending, t)
}

/// `mbarrier.arrive.expect_tx`: `b` holds the arrivals in bits 31:0 and the bytes in
/// 63:32; the transactions are expected first, then the arrivals made.
pub fn arrive_expect_tx(old: u64, b: u64) -> u64 {
    arrive(expect_tx(old, b >> 32), b & 0xFFFF_FFFF, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn parity(w: u64) -> u64 {
        w >> 63
    }

    #[test]
    fn mbarrier_phases() {
        let b = init(3);
        let (b1, b2) = (arrive(b, 1, false), arrive(arrive(b, 1, false), 1, false));
        assert_eq!(parity(b1), 0);
        assert_eq!(pending(b2), 1);
        let done = arrive(b2, 1, false);
        assert_eq!((parity(done), pending(done), done >> 20 & COUNT), (1, 3, 3), "phase flips, count restored");
        // Dropping leaves the next phases expecting fewer.
        let d = arrive(init(2), 1, true);
        assert_eq!((parity(d), pending(d)), (0, 1));
        let d = arrive(d, 1, false);
        assert_eq!((parity(d), pending(d)), (1, 1));
        // More arrivals than pending (undefined in PTX) complete the phase, never wrap.
        assert_eq!(parity(arrive(init(1), 5, false)), 1);
        assert_eq!(init(MAX_COUNT), (COUNT << 20) | COUNT);
    }

    #[test]
    fn a_phase_waits_for_its_transactions_as_well_as_its_arrivals() {
        // One arrival that expects 4096 bytes; the copy completes them later.
        let b = arrive_expect_tx(init(1), 4096 << 32 | 1);
        assert_eq!((parity(b), pending(b), tx(b)), (0, 0, 4096), "arrived, bytes outstanding");
        let b = complete_tx(b, 1024);
        assert_eq!((parity(b), tx(b)), (0, 3072));
        let b = complete_tx(b, 3072);
        assert_eq!((parity(b), pending(b), tx(b)), (1, 1, 0), "complete: the next phase is fresh");
        // Bytes may complete before they are expected (a negative count), and the last
        // arrival then completes the phase.
        let b = complete_tx(init(1), 512);
        assert_eq!(tx(b), -512);
        let b = expect_tx(b, 512);
        assert_eq!((parity(b), tx(b), pending(b)), (0, 0, 1));
        assert_eq!(parity(arrive(b, 1, false)), 1);
        // The count saturates at its range instead of spilling into the other fields.
        let b = expect_tx(expect_tx(init(1), COUNT), COUNT);
        assert_eq!((tx(b), pending(b), b >> 20 & COUNT), (COUNT as i32, 1, 1));
    }
}
