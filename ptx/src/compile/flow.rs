//! Control flow: branches to labels, the single exit block, and reconvergence points (the
//! immediate post-dominator of each conditional branch's block).

use super::{Kc, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{ALWAYS, BranchTarget, Instr, Op, Ty};

/// Basic blocks of `code` (which starts at instruction `start` of the module): the first
/// instruction of each block and each block's successors (`starts.len()` is the exit).
pub(crate) fn cfg(code: &[Instr], start: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
    let rel = |x: u32| (x as usize).saturating_sub(start).min(code.len().saturating_sub(1));
    let mut leader = vec![false; code.len() + 1];
    leader[0] = true;
    for (k, ins) in code.iter().enumerate() {
        match ins.w0.op() {
            Op::Bra => {
                leader[rel(BranchTarget::from(ins.imm).target())] = true;
                leader[k + 1] = true;
            }
            Op::Exit | Op::Ret | Op::Trap => leader[k + 1] = true,
            _ => {}
        }
    }
    let starts: Vec<usize> = (0..code.len()).filter(|&k| leader[k]).collect();
    let block_of = |k: usize| starts.partition_point(|&s| s <= k) - 1;
    let nb = starts.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for b in 0..nb {
        let last = if b + 1 < nb { starts[b + 1] - 1 } else { code.len() - 1 };
        let ins = &code[last];
        match ins.w0.op() {
            Op::Bra => {
                succ[b].push(block_of(rel(BranchTarget::from(ins.imm).target())));
                if ins.w0.guard() != ALWAYS && last + 1 < code.len() {
                    succ[b].push(block_of(last + 1));
                }
            }
            Op::Exit | Op::Ret | Op::Trap => succ[b].push(nb),
            _ if last + 1 < code.len() => succ[b].push(block_of(last + 1)),
            _ => succ[b].push(nb),
        }
    }
    (starts, succ)
}

impl<'a> Kc<'a> {
    pub(crate) fn branch(&mut self, label: String) -> Result<()> {
        let at = self.push(Instr::new(Op::Bra, Ty::U32));
        self.fixups.push((at, label, self.pos));
        Ok(())
    }

    /// Resolve branch targets and reconvergence points for the code from `self.start`.
    pub(crate) fn resolve(&mut self, exit: u32) -> Result<()> {
        for (at, label, pos) in core::mem::take(&mut self.fixups) {
            let t = *self.labels.get(&label).ok_or_else(|| pos.err(format!("unknown label `{label}`")))?;
            self.prog.code[at as usize].imm = BranchTarget::new().with_target(t).with_reconverge(t).into();
        }
        let (start, end) = (self.start as usize, self.prog.code.len());
        let code: Vec<Instr> = self.prog.code[start..end].to_vec();
        let (starts, succ) = cfg(&code, start);
        let nb = starts.len();
        let exit_node = nb; // virtual exit
        // Post-dominator sets (bitsets over blocks and the virtual exit).
        let words = (nb + 1).div_ceil(64);
        let full = vec![u64::MAX; words];
        let mut pd: Vec<Vec<u64>> = vec![full; nb + 1];
        pd[exit_node] = vec![0; words];
        pd[exit_node][exit_node / 64] |= 1 << (exit_node % 64);
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                let mut s = vec![u64::MAX; words];
                for &x in &succ[b] {
                    for w in 0..words {
                        s[w] &= pd[x][w];
                    }
                }
                if succ[b].is_empty() {
                    s = vec![0; words];
                }
                s[b / 64] |= 1 << (b % 64);
                if s != pd[b] {
                    pd[b] = s;
                    changed = true;
                }
            }
        }
        let count = |s: &Vec<u64>| s.iter().map(|w| w.count_ones()).sum::<u32>();
        let ipdom = |b: usize| -> usize {
            (0..=nb)
                .filter(|&d| d != b && pd[b][d / 64] >> (d % 64) & 1 == 1)
                .max_by_key(|&d| count(&pd[d]))
                .unwrap_or(exit_node)
        };
        for b in 0..nb {
            let last = if b + 1 < nb { starts[b + 1] - 1 } else { code.len() - 1 };
            let ins = code[last];
            if ins.w0.op() == Op::Bra && ins.w0.guard() != ALWAYS {
                let d = ipdom(b);
                let rpc = if d == exit_node { exit } else { (starts[d] + start) as u32 };
                let t = BranchTarget::from(ins.imm).with_reconverge(rpc);
                self.prog.code[start + last].imm = t.into();
            }
        }
        Ok(())
    }
}
