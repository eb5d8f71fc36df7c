//! Narrowing: which 64-bit live ranges count as one 32-bit register.

use super::{DST, Operands, Webs};
use alloc::vec::Vec;
use hw::isa::{CvtMods, Instr, MulMode, Op, Space};

/// How an instruction reads one of its operands, for [`narrow`].
enum Need {
    /// Only the low 32 bits matter.
    Low,
    /// The low 32 bits of the result depend only on the low 32 bits of this operand.
    Follows,
    /// Every bit.
    All,
}

fn need(i: &Instr, k: usize) -> Need {
    if k == 0 {
        return Need::Low; // a guard reads bit 0
    }
    let w = i.w0;
    let ty = w.ty();
    let shared = Space::from_bits(w.m()) == Some(Space::Shared);
    match w.op() {
        // A shared-window address: the hardware uses 32 bits of it.
        Op::Ld | Op::St | Op::Atom if k == 2 && shared => Need::Low,
        // Truncation to an integer of 32 bits or less.
        Op::Cvt if !ty.float() && ty.bytes() <= 4 => match CvtMods::decode(w.m()) {
            Some(c) if !c.src.float() => Need::Low,
            _ => Need::All,
        },
        Op::Shl if k == 3 => Need::Low,
        Op::Add | Op::Sub | Op::Mov | Op::And | Op::Or | Op::Xor | Op::Not | Op::Neg | Op::Shl if !ty.float() => {
            Need::Follows
        }
        Op::Mul | Op::Mad if !ty.float() && w.m() & 3 == MulMode::Lo as u16 => Need::Follows,
        _ => Need::All,
    }
}

/// ptxas keeps a 64-bit value of which only the low 32 bits are ever used (a shared-memory
/// address, a counter only truncated) in one 32-bit register. Count such ranges as one
/// unit: a fixpoint from "every 64-bit range is narrow", widening a range with a use that
/// needs its high bits or that feeds a wide range.
pub(super) fn narrow(code: &[Instr], ops: &Operands, webs: &mut Webs) {
    let (field_node, range_of) = (&webs.field_node, &webs.range_of);
    let pair: Vec<bool> = webs.ranges.iter().map(|r| r.units == 2).collect();
    let mut narrow = pair.clone();
    // Ranges of the vector groups stay as they are.
    for p in 0..code.len() {
        for k in 0..5 {
            let group = |x: Option<(usize, u8)>| x.is_some_and(|(v, _)| ops.is_group(v));
            if group(ops.reads[p][k]) || (k == DST && group(ops.writes[p])) {
                narrow[range_of[field_node[p][k] as usize] as usize] = false;
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for p in 0..code.len() {
            let result = ops.writes[p].map(|_| range_of[field_node[p][DST] as usize] as usize);
            for k in (0..5).filter(|&k| k != DST && ops.reads[p][k].is_some()) {
                let r = range_of[field_node[p][k] as usize] as usize;
                if !narrow[r] {
                    continue;
                }
                let keep = match need(&code[p], k) {
                    Need::Low => true,
                    Need::Follows => result.is_some_and(|d| narrow[d] || !pair[d]),
                    Need::All => false,
                };
                if !keep {
                    narrow[r] = false;
                    changed = true;
                }
            }
        }
    }
    for (rg, _) in webs.ranges.iter_mut().zip(&narrow).filter(|(_, n)| **n) {
        rg.units = 1;
    }
}
