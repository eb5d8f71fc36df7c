//! Hopper's bulk copies (`cp.async.bulk`, sm_90, the 1D form of the Tensor Memory
//! Accelerator): a thread copies a multiple of 16 bytes between global and shared memory
//! (or within shared memory) in one instruction, [`Op::Bulk`], and the copy's completion is
//! reported as transactions on an `mbarrier` (`.mbarrier::complete_tx::bytes`: the bytes
//! count down the barrier's transaction count) or through a bulk group (`commit_group`,
//! `wait_group`). rgdev does the copy at once, where the instruction is, so the barrier's
//! `complete_tx` follows it at once and the groups have nothing left to wait for. A
//! `.shared::cluster` destination may be another block's of the cluster (from `mapa`), its
//! mbarrier that block's. A multicast copy (`.multicast::cluster`, global memory to every
//! block of a 16-bit mask of cluster ranks) is one [`Op::Bulk`] that lands at the same
//! offset in each of them and completes the transactions of each one's mbarrier at the
//! same offset. Tensor-map copies (`.tensor`) and bulk reductions (`cp.reduce.async.bulk`)
//! are refused by name.

use super::{Kc, MemPlace, Result, Src, ast};
use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use hw::isa::{AtomOp, BulkMods, Instr, Op, RZ, Ty};

impl Kc<'_> {
    /// `cp.async.bulk.*`, `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group{.read} N`,
    /// `cp.async.bulk.prefetch.L2.global [src], size`.
    pub(crate) fn cp_async_bulk(&mut self, i: &ast::Instr) -> Result<()> {
        let refuse = |kc: &Self| {
            Err(kc.pos.unsupported(format!(
                "`{}.{}` is a PTX instruction rgdev does not implement (CUDA_ERROR_NOT_SUPPORTED)",
                i.op,
                i.mods.join(".")
            )))
        };
        if i.has("tensor") || i.has("reduce") || i.op != "cp" || i.has("cp_mask") {
            return refuse(self);
        }
        if i.has("commit_group") || i.has("wait_group") {
            return Ok(());
        }
        if i.has("prefetch") {
            // A cache hint: the caches fill on demand.
            self.src(self.arg(i, 1)?, Ty::U32)?;
            return Ok(());
        }
        // Spaces in PTX's order: the destination's, then the source's.
        let spaces: vec::Vec<&str> = i
            .mods
            .iter()
            .filter(|m| m.starts_with("shared::") || m.as_str() == "global")
            .map(|m| if m.starts_with("shared") { "shared" } else { "global" })
            .collect();
        let (dst_space, src_space) = match spaces.as_slice() {
            [d, s] if (*d, *s) != ("global", "global") => (*d, *s),
            _ => {
                return Err(self.err(format!(
                    "`cp.{}`: expected a destination and a source space (`.shared::cta`, `.shared::cluster`, `.global`)",
                    i.mods.join(".")
                )));
            }
        };
        let barrier = i.mods.iter().any(|m| m.starts_with("mbarrier"));
        if barrier == (dst_space == "global") {
            // To global memory: a bulk group; to shared memory: an mbarrier.
            return Err(self.err(format!("`cp.{}` is not a bulk copy PTX defines", i.mods.join("."))));
        }
        let as_space = |space: &str| ast::Instr { mods: vec![space.to_string()], ..i.clone() };
        let dst = self.address(&as_space(dst_space), self.arg(i, 0)?)?;
        let src = self.address(&as_space(src_space), self.arg(i, 1)?)?;
        let size = self.src(self.arg(i, 2)?, Ty::U32)?;
        let size = self.in_reg(size)?;
        let (d, s) = (self.address_reg(dst)?, self.address_reg(src)?);
        if i.has("multicast::cluster") {
            return self.bulk_multicast(i, (d, s, size), (dst_space, src_space, barrier));
        }
        let mut x = Instr::new(Op::Bulk, Ty::U32);
        x.w0.set_dst(RZ);
        x.w0.set_a(d);
        x.w0.set_b(s);
        x.w0.set_c(size);
        x.w0.set_m(BulkMods::encode(src.0, dst.0));
        self.push(x);
        if barrier {
            let bar = Self::in_shared(&ast::Instr { mods: vec!["shared".to_string()], ..i.clone() });
            self.barrier_atom(&bar, 3, RZ, Src::Reg(size), AtomOp::CompleteTx)?;
        }
        Ok(())
    }

    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
    /// [dst], [src], size, [mbar], ctaMask`: the destination and the mbarrier's shared
    /// addresses packed in one register, the bytes and the mask in another (see
    /// [`hw::isa::BulkMods`]).
    fn bulk_multicast(&mut self, i: &ast::Instr, (d, s, size): (u8, u8, u8), spaces: (&str, &str, bool)) -> Result<()> {
        if spaces != ("shared", "global", true) {
            return Err(self.err(format!(
                "`cp.{}`: a multicast copy is from global memory to `.shared::cluster` with an mbarrier",
                i.mods.join(".")
            )));
        }
        let bar = self.address(&Self::in_shared(i), self.arg(i, 3)?)?;
        let bar = self.address_reg(bar)?;
        let mask = self.src(self.arg(i, 4)?, Ty::U16)?;
        let mask = self.in_reg(mask)?;
        let (low, a, c) = (self.scratch()?, self.scratch()?, self.scratch()?);
        let word = Src::Imm(0xFFFF_FFFF, false);
        // a = dst | mbar << 32
        self.emit(Op::Shl, Ty::U64, a, [Some(Src::Reg(bar)), Some(Src::Imm(32, false)), None], 0)?;
        self.emit(Op::And, Ty::U64, low, [Some(Src::Reg(d)), Some(word), None], 0)?;
        self.emit(Op::Or, Ty::U64, a, [Some(Src::Reg(a)), Some(Src::Reg(low)), None], 0)?;
        // c = bytes | (mask & 0xFFFF) << 32
        self.emit(Op::And, Ty::U64, c, [Some(Src::Reg(mask)), Some(Src::Imm(0xFFFF, false)), None], 0)?;
        self.emit(Op::Shl, Ty::U64, c, [Some(Src::Reg(c)), Some(Src::Imm(32, false)), None], 0)?;
        self.emit(Op::And, Ty::U64, low, [Some(Src::Reg(size)), Some(word), None], 0)?;
        self.emit(Op::Or, Ty::U64, c, [Some(Src::Reg(c)), Some(Src::Reg(low)), None], 0)?;
        let mut x = Instr::new(Op::Bulk, Ty::U32);
        x.w0.set_dst(RZ);
        x.w0.set_a(a);
        x.w0.set_b(s);
        x.w0.set_c(c);
        x.w0.set_m(BulkMods::encode(hw::isa::Space::Global, hw::isa::Space::Shared) | BulkMods::MULTICAST);
        self.push(x);
        Ok(())
    }

    /// The address `place` names, in one register.
    fn address_reg(&mut self, (_, _, reg, off, reloc): MemPlace) -> Result<u8> {
        if reg == RZ || reloc {
            let r = self.scratch()?;
            self.mov_imm(r, off, reloc);
            if reg != RZ {
                self.emit(Op::Add, Ty::U64, r, [Some(Src::Reg(r)), Some(Src::Reg(reg)), None], 0)?;
            }
            return Ok(r);
        }
        if off == 0 {
            return Ok(reg);
        }
        let r = self.scratch()?;
        self.emit(Op::Add, Ty::U64, r, [Some(Src::Reg(reg)), Some(Src::Imm(off, false)), None], 0)?;
        Ok(r)
    }
}
