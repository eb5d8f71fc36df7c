//! `mbarrier` (sm_80): split-phase barriers in shared memory (what `cuda::barrier`,
//! `cuda::pipeline` and `cuda_awbarrier.h` compile to). The object is `hw::isa::mbarrier`'s
//! 64-bit word: `init` stores it, `arrive`/`arrive_drop` are an atomic on it (the
//! [`AtomOp::Arrive`] operations, which return the word before as the state token),
//! `test_wait`/`try_wait` compare the word's phase parity with the token's (or with the
//! parity operand of `.parity`), `pending_count` reads the token. `cp.async.mbarrier.arrive`
//! arrives when the thread's copies are done, which in rgdev is at once: with `.noinc` it is
//! an arrival, without it the pending count it adds first cancels it. sm_90's transaction
//! counts: `expect_tx`, `complete_tx` and `arrive.expect_tx` are atomics too
//! ([`AtomOp::ExpectTx`], [`AtomOp::CompleteTx`], [`AtomOp::ArriveExpectTx`]); a phase
//! completes when its arrivals and its bytes are all in. `.shared::cluster` is the block's
//! own shared memory (clusters of one block).

use super::{Kc, MemPlace, Operand, Result, Src, ast};
use alloc::format;
use alloc::string::String;
use alloc::string::ToString;
use hw::isa::{AtomOp, Cmp, Op, RZ, Space, Ty};

impl Kc<'_> {
    /// The instruction with its state space as `address` knows it (`.shared::cta` is
    /// `.shared`).
    pub(crate) fn in_shared(i: &ast::Instr) -> ast::Instr {
        let mods =
            i.mods.iter().map(|m| if m.starts_with("shared") { "shared".to_string() } else { m.clone() }).collect();
        ast::Instr { mods, ..i.clone() }
    }

    /// `mbarrier.{init,arrive,arrive_drop,test_wait,try_wait,pending_count,inval}`.
    pub(crate) fn mbarrier(&mut self, i: &ast::Instr) -> Result<()> {
        if i.mods.iter().any(|m| m == "noComplete") {
            return Err(self.err(format!("`mbarrier.{}` is not supported", i.mods.join("."))));
        }
        let at = Self::in_shared(i);
        let imm = |v: u64| Some(Src::Imm(v, false));
        match i.mods.first().map(String::as_str) {
            Some("init") => {
                let (space, bank, reg, addr, reloc) = self.address(&at, self.arg(i, 0)?)?;
                let n = self.src(self.arg(i, 1)?, Ty::U32)?;
                let (t, hi) = (self.scratch()?, self.scratch()?);
                self.emit(Op::And, Ty::U64, t, [Some(n), imm(hw::isa::mbarrier::MAX_COUNT as u64), None], 0)?;
                self.emit(Op::Shl, Ty::U64, hi, [Some(Src::Reg(t)), imm(20), None], 0)?;
                self.emit(Op::Or, Ty::U64, t, [Some(Src::Reg(t)), Some(Src::Reg(hi)), None], 0)?;
                self.barrier_access(Op::St, (space, bank, reg, addr, reloc), t)
            }
            Some("arrive") if i.has("expect_tx") => {
                // b: the arrivals (default 1) in the low word, the bytes in the high one.
                let d = match self.arg(i, 0)? {
                    Operand::Name(n) if n == "_" => RZ,
                    o => self.dst(o)?,
                };
                let bytes = self.src(self.arg(i, 2)?, Ty::U32)?;
                let count = match i.args.get(3) {
                    Some(o) => self.src(o, Ty::U32)?,
                    None => Src::Imm(1, false),
                };
                let (b, t) = (self.scratch()?, self.scratch()?);
                self.emit(Op::And, Ty::U64, b, [Some(bytes), imm(0xFFFF_FFFF), None], 0)?;
                self.emit(Op::Shl, Ty::U64, b, [Some(Src::Reg(b)), imm(32), None], 0)?;
                self.emit(Op::And, Ty::U64, t, [Some(count), imm(0xFFFF_FFFF), None], 0)?;
                self.emit(Op::Or, Ty::U64, b, [Some(Src::Reg(b)), Some(Src::Reg(t)), None], 0)?;
                self.barrier_atom(&at, 1, d, Src::Reg(b), AtomOp::ArriveExpectTx)
            }
            Some(op @ ("arrive" | "arrive_drop")) => {
                let d = match self.arg(i, 0)? {
                    Operand::Name(n) if n == "_" => RZ,
                    o => self.dst(o)?,
                };
                let count = match i.args.get(2) {
                    Some(o) => self.src(o, Ty::U32)?,
                    None => Src::Imm(1, false),
                };
                let aop = if op == "arrive" { AtomOp::Arrive } else { AtomOp::ArriveDrop };
                self.barrier_atom(&at, 1, d, count, aop)
            }
            Some(op @ ("expect_tx" | "complete_tx")) => {
                let bytes = self.src(self.arg(i, 1)?, Ty::U32)?;
                let aop = if op == "expect_tx" { AtomOp::ExpectTx } else { AtomOp::CompleteTx };
                self.barrier_atom(&at, 0, RZ, bytes, aop)
            }
            Some("test_wait" | "try_wait") => {
                let p = self.dst(self.arg(i, 0)?)?;
                let place = self.address(&at, self.arg(i, 1)?)?;
                let cur = self.scratch()?;
                self.barrier_access(Op::Ld, place, cur)?;
                let token = self.src(self.arg(i, 2)?, Ty::U64)?;
                if i.has("parity") {
                    // Complete when the phase's parity is no longer the operand's.
                    self.emit(Op::Shr, Ty::U64, cur, [Some(Src::Reg(cur)), imm(63), None], 0)?;
                    self.emit(Op::And, Ty::U32, cur, [Some(Src::Reg(cur)), imm(1), None], 0)?;
                    let par = self.scratch()?;
                    self.emit(Op::And, Ty::U32, par, [Some(token), imm(1), None], 0)?;
                    self.emit(Op::Setp, Ty::U32, p, [Some(Src::Reg(cur)), Some(Src::Reg(par)), None], Cmp::Ne as u16)?;
                } else {
                    self.emit(Op::Xor, Ty::U64, cur, [Some(Src::Reg(cur)), Some(token), None], 0)?;
                    self.emit(Op::Shr, Ty::U64, cur, [Some(Src::Reg(cur)), imm(63), None], 0)?;
                    self.emit(Op::Setp, Ty::U64, p, [Some(Src::Reg(cur)), imm(0), None], Cmp::Ne as u16)?;
                }
                Ok(())
            }
            Some("pending_count") => {
                let d = self.dst(self.arg(i, 0)?)?;
                let s = self.src(self.arg(i, 1)?, Ty::U64)?;
                self.emit(Op::And, Ty::U64, d, [Some(s), imm(hw::isa::mbarrier::MAX_COUNT as u64), None], 0).map(|_| ())
            }
            Some("inval") => Ok(()),
            _ => Err(self.err(format!("`mbarrier.{}` is not supported", i.mods.join(".")))),
        }
    }

    /// `cp.async.mbarrier.arrive{.noinc}.shared.b64 [addr]`: the copies are done already.
    pub(crate) fn cp_async_arrive(&mut self, i: &ast::Instr) -> Result<()> {
        if !i.has("noinc") {
            return Ok(()); // +1 pending, then the copies' arrival: no change
        }
        self.barrier_atom(&Self::in_shared(i), 0, RZ, Src::Imm(1, false), AtomOp::Arrive)
    }

    /// The arrive atomic on the barrier at operand `at` of `i`: `d` = the word before.
    pub(crate) fn barrier_atom(&mut self, i: &ast::Instr, at: usize, d: u8, count: Src, aop: AtomOp) -> Result<()> {
        let (space, _, reg, addr, reloc) = self.address(i, self.arg(i, at)?)?;
        if !matches!(space, Space::Shared | Space::Generic) {
            return Err(self.err("an `mbarrier` is in shared memory"));
        }
        let b = self.in_reg(count)?;
        self.atom_at(Ty::U64, (space, 0, reg, addr, reloc), d, (b, RZ), aop)
    }

    /// A 64-bit load or store of the barrier word at `place`.
    fn barrier_access(&mut self, op: Op, place: MemPlace, val: u8) -> Result<()> {
        if !matches!(place.0, Space::Shared | Space::Generic) {
            return Err(self.err("an `mbarrier` is in shared memory"));
        }
        self.mem_access(op, Ty::U64, place, 0, val)
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn mbarrier_and_isspacep() {
        let hdr = ".version 7.0\n.target sm_80\n.address_size 64\n.entry k(.param .u64 p)\n{\n .reg .b64 %rd<4>;\n .reg .b32 %r<4>;\n .reg .pred %p<3>;\n .shared .align 8 .b64 bar;\n ld.param.u64 %rd1, [p];\n";
        let ok = format!(
            "{hdr} mbarrier.init.shared::cta.b64 [bar], 64;\n mbarrier.arrive.release.cta.shared.b64 %rd2, [bar];\n mbarrier.arrive_drop.shared.b64 _, [bar], 2;\n mbarrier.test_wait.shared.b64 %p1, [bar], %rd2;\n mbarrier.try_wait.parity.shared.b64 %p2, [bar], %r1;\n mbarrier.pending_count.b64 %r2, %rd2;\n cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n cp.async.mbarrier.arrive.shared.b64 [bar];\n isspacep.shared %p1, %rd1;\n isspacep.global %p2, %rd1;\n ret;\n}}\n"
        );
        let p = compile_ptx(&ok).unwrap();
        let arrives =
            |op| p.code.iter().filter(|i| i.w0.op() == Op::Atom && AtomMods::op(i.w0.m()) == Some(op)).count();
        // The arrive, the noinc copy arrival (the other is no change), the drop.
        assert_eq!((arrives(AtomOp::Arrive), arrives(AtomOp::ArriveDrop)), (2, 1));
        let e = compile_ptx(&format!("{hdr} mbarrier.arrive.noComplete.shared.b64 %rd2, [bar], 1;\n ret;\n}}\n"))
            .unwrap_err();
        assert!(e.msg.contains("`mbarrier.arrive.noComplete.shared.b64` is not supported"), "{e}");
        // sm_90's transaction counts and bulk copies.
        let tx = format!(
            "{hdr} mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd2, [bar], 4096;\n\
             mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 16;\n\
             mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 16;\n\
             cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [bar], [%rd1], 4096, [bar];\n\
             cp.async.bulk.global.shared::cta.bulk_group [%rd1], [bar], 64;\n\
             cp.async.bulk.commit_group;\n cp.async.bulk.wait_group.read 0;\n\
             cp.async.bulk.prefetch.L2.global [%rd1], 256;\n ret;\n}}\n"
        );
        let p = compile_ptx(&tx).unwrap();
        // arrive.expect_tx, expect_tx, complete_tx, and the copy's complete_tx.
        let n = [AtomOp::ArriveExpectTx, AtomOp::ExpectTx, AtomOp::CompleteTx]
            .map(|op| p.code.iter().filter(|i| i.w0.op() == Op::Atom && AtomMods::op(i.w0.m()) == Some(op)).count());
        assert_eq!(n, [1, 1, 2]);
        assert_eq!(p.code.iter().filter(|i| i.w0.op() == Op::Bulk).count(), 2);
        for bad in [
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [bar], [%rd1, {%r1}], [bar];",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [bar], 64;",
        ] {
            let e = compile_ptx(&format!("{hdr} {bad}\n ret;\n}}\n")).unwrap_err();
            assert!(e.unsupported && e.msg.contains("rgdev does not implement"), "{e}");
        }
    }
}
