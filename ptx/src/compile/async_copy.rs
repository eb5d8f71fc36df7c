//! Asynchronous copies (`cp.async`, sm_80): global to shared memory copies of 4, 8 or 16
//! bytes that a thread later waits for with `cp.async.wait_group`/`wait_all`. rgdev does
//! each copy at once, where the instruction is: a copy that completes before the thread
//! goes on is one that has completed by every wait, so programs see what CUDA guarantees
//! (they may not read the destination before their wait). The bytes past `src-size` are
//! zeros, and are not read. `commit_group` and the waits have nothing left to do.

use super::{Kc, Operand, Result, Src, ast};
use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use hw::isa::{Cmp, Op, Space, Ty};

impl Kc<'_> {
    /// `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}{, policy}`,
    /// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`.
    pub(crate) fn cp_async(&mut self, i: &ast::Instr) -> Result<()> {
        if i.has("commit_group") || i.has("wait_group") || i.has("wait_all") {
            return Ok(());
        }
        if i.has("mbarrier") && i.has("arrive") {
            return self.cp_async_arrive(i);
        }
        if i.has("bulk") {
            return self.cp_async_bulk(i);
        }
        if i.has("mbarrier") || !i.has("shared") || !i.has("global") {
            return Err(self.err(format!("`cp.async.{}` is not supported", i.mods.join("."))));
        }
        let size = match self.arg(i, 2)? {
            Operand::Int(n @ (4 | 8 | 16)) => *n,
            _ => return Err(self.err("`cp.async` copies 4, 8 or 16 bytes (an immediate)")),
        };
        // With `.L2::cache_hint` the last operand is a cache policy, not a source size.
        let nsize = if i.has("L2::cache_hint") { i.args.len().saturating_sub(1) } else { i.args.len() };
        let src_size = if nsize > 3 { Some(self.src(self.arg(i, 3)?, Ty::U32)?) } else { None };
        let as_space = |space: &str| ast::Instr { mods: vec![space.to_string()], ..i.clone() };
        let dst = self.address(&as_space("shared"), self.arg(i, 0)?)?;
        let src = self.address(&as_space("global"), self.arg(i, 1)?)?;
        match src_size {
            None => self.copy_words(dst, src, size),
            Some(Src::Imm(n, _)) if n >= size => self.copy_words(dst, src, size),
            Some(s) => {
                if self.guard.is_some() {
                    return Err(self.err("a predicated `cp.async` with a source size is not supported"));
                }
                self.copy_bytes(dst, src, size, s)
            }
        }
    }

    /// The whole copy, in 8-byte words (4 bytes for a 4-byte copy).
    fn copy_words(
        &mut self,
        dst: (Space, u32, u8, u64, bool),
        src: (Space, u32, u8, u64, bool),
        size: u64,
    ) -> Result<()> {
        let (ty, step) = if size == 4 { (Ty::U32, 4) } else { (Ty::U64, 8) };
        let t = self.scratch()?;
        for at in (0..size).step_by(step) {
            self.mem_access(Op::Ld, ty, src, at, t)?;
            self.mem_access(Op::St, ty, dst, at, t)?;
        }
        Ok(())
    }

    /// Byte by byte: the bytes below `n` copied (each load guarded by its own test), the
    /// rest zeros.
    fn copy_bytes(
        &mut self,
        dst: (Space, u32, u8, u64, bool),
        src: (Space, u32, u8, u64, bool),
        size: u64,
        n: Src,
    ) -> Result<()> {
        let n = Src::Reg(self.in_reg(n)?);
        let (t, p) = (self.scratch()?, self.scratch()?);
        for at in 0..size {
            self.emit(Op::Mov, Ty::U32, t, [Some(Src::Imm(0, false)), None, None], 0)?;
            self.emit(Op::Setp, Ty::U32, p, [Some(n), Some(Src::Imm(at, false)), None], Cmp::Gt as u16)?;
            self.guard = Some((false, p));
            let r = self.mem_access(Op::Ld, Ty::U8, src, at, t);
            self.guard = None;
            r?;
            self.mem_access(Op::St, Ty::U8, dst, at, t)?;
        }
        Ok(())
    }
}
