//! The registers NVIDIA's compiler's sequences hold (IEEE division, square root, integer
//! division, ...), which the device runs as one instruction: counted as live ranges of
//! their own, so that a kernel's register count, and its occupancy, are the part's.

use super::{Range, Webs};
use alloc::vec::Vec;
use hw::isa::{Imm, Instr, Sequence};

/// Ranges for the registers the real part's sequence for an instruction holds beyond its
/// operands ([`Op::sequence_regs`]: IEEE division, square root, integer division, ...):
/// live at that instruction alone, in pairs for 64-bit types. The device runs such an
/// instruction as one; the registers are counted so that occupancy is the part's. Per
/// instruction with any: its first such range and how many follow.
pub(super) fn sequence_temps(code: &[Instr], webs: &mut Webs) -> Vec<(usize, u32, u32)> {
    let mut temps = Vec::new();
    for (p, i) in code.iter().enumerate() {
        let w = i.w0;
        let n = w.op().sequence_regs(w.ty(), w.m());
        // An integer divisor known when compiling is a multiply by its reciprocal.
        let constant = w.op().sequence(w.ty(), w.m()) == Some(Sequence::IntDivide) && w.imm() == Imm::B;
        if n == 0 || constant {
            continue;
        }
        let first = webs.ranges.len() as u32;
        let pairs = if w.ty().bytes() == 8 { n / 2 } else { 0 };
        let temp = |units| Range { units, span: 1, general: true, first: p, last: p, ..Range::default() };
        webs.ranges.extend((0..pairs).map(|_| temp(2)));
        webs.ranges.extend((0..n - 2 * pairs).map(|_| temp(1)));
        temps.push((p, first, webs.ranges.len() as u32 - first));
    }
    temps
}
