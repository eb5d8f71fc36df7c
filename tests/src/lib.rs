//! Shared helpers for rgdev's integration tests: a deterministic random generator and a
//! mock bus with an expectation list of register accesses (embedded-hal-mock style).
#![deny(missing_docs)]

/// One warp iterating `acc = acc * 3 + 1` `n` times, then storing `acc`: a kernel that
/// runs long and is cheap to simulate (entry `chain(out, n)`; prepend a PTX header).
pub const CHAIN_PTX: &str = ".entry chain(.param .u64 out, .param .u32 n)
{
 .reg .b32 %r<4>;
 .reg .b64 %rd<2>;
 .reg .pred %p;
 ld.param.u64 %rd1, [out];
 ld.param.u32 %r1, [n];
 mov.u32 %r2, 0;
 mov.u32 %r3, 1;
L:
 mad.lo.u32 %r3, %r3, 3, 1;
 add.u32 %r2, %r2, 1;
 setp.lt.u32 %p, %r2, %r1;
 @%p bra L;
 st.global.u32 [%rd1], %r3;
 ret;
}
";

pub mod board;
pub mod built;
pub mod decls;
pub mod fuzz;
pub mod mock;
pub mod nvidia;
pub mod pressure;

/// xorshift64*: deterministic test data without a dependency.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A value in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}
