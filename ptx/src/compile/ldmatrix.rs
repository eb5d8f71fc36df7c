//! `ldmatrix` (sm_75): a warp's load of 8x8 matrices of 16-bit elements from shared memory
//! into the fragments `mma.sync` takes. Lanes `8 m .. 8 m + 7` give the addresses of the
//! eight rows of matrix `m`; lane `l` receives, for each matrix, the pair at row `l / 4`,
//! columns `2 (l % 4)` and `2 (l % 4) + 1` (with `.trans`, at column `l / 4`, rows
//! `2 (l % 4)` and `2 (l % 4) + 1`), packed low element first. It becomes shuffles of the
//! row addresses and each lane's own shared loads.

use super::{Kc, Operand, Result, Src, ast};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{Instr, Op, ShflMode, Space, Sreg, Ty};

impl Kc<'_> {
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16 d, [addr]`.
    pub(crate) fn ldmatrix(&mut self, i: &ast::Instr) -> Result<()> {
        let n = match () {
            _ if i.has("x4") => 4,
            _ if i.has("x2") => 2,
            _ if i.has("x1") => 1,
            _ => 0,
        };
        if n == 0 || !i.has("m8n8") || !i.has("b16") || !i.has("sync") {
            return Err(self.err(format!("`ldmatrix.{}` is not supported", i.mods.join("."))));
        }
        let trans = i.has("trans");
        let dsts: Vec<u8> = match self.arg(i, 0)? {
            Operand::Vector(v) if v.len() == n => v.iter().map(|o| self.dst(o)).collect::<Result<_>>()?,
            o if n == 1 && !matches!(o, Operand::Vector(_)) => vec![self.dst(o)?],
            _ => return Err(self.err(format!("`ldmatrix` of {n} matrices writes {n} registers"))),
        };
        let (space, _, reg, addr, reloc) = self.address(&Self::in_shared(i), self.arg(i, 1)?)?;
        if reloc || !matches!(space, Space::Shared | Space::Generic) {
            return Err(self.err("`ldmatrix` reads shared memory"));
        }
        let imm = |v: u64| Some(Src::Imm(v, false));
        let r = |x: u8| Some(Src::Reg(x));
        // This lane's row address, and its lane number.
        let [base, lane, src, row, off, lo, hi] = [(); 7].map(|_| self.scratch());
        let [base, lane, src, row, off, lo, hi] = [base?, lane?, src?, row?, off?, lo?, hi?];
        self.emit(Op::Add, Ty::U64, base, [r(reg), imm(addr), None], 0)?;
        let mut s = Instr::new(Op::S2r, Ty::U32);
        s.w0.set_dst(lane);
        s.imm = Sreg::LaneId as u64;
        self.push(s);
        for (m, &d) in dsts.iter().enumerate() {
            let m = 8 * m as u64;
            if !trans {
                // Row lane / 4 of matrix m: its address from lane 8 m + lane / 4, then the
                // pair at column 2 (lane % 4).
                self.emit(Op::Shr, Ty::U32, src, [r(lane), imm(2), None], 0)?;
                self.emit(Op::Add, Ty::U32, src, [r(src), imm(m), None], 0)?;
                self.emit(Op::Shfl, Ty::U64, row, [r(base), r(src), imm(0x1F)], ShflMode::Idx as u16)?;
                self.emit(Op::And, Ty::U32, off, [r(lane), imm(3), None], 0)?;
                self.emit(Op::Shl, Ty::U32, off, [r(off), imm(2), None], 0)?;
                self.emit(Op::Add, Ty::U64, row, [r(row), r(off), None], 0)?;
                self.mem_access(Op::Ld, Ty::U32, (space, 0, row, 0, false), 0, d)?;
                continue;
            }
            // Column lane / 4 of matrix m, rows 2 (lane % 4) and the next.
            self.emit(Op::Shr, Ty::U32, off, [r(lane), imm(2), None], 0)?;
            self.emit(Op::Shl, Ty::U32, off, [r(off), imm(1), None], 0)?;
            for (h, part) in [(0, lo), (1, hi)] {
                self.emit(Op::And, Ty::U32, src, [r(lane), imm(3), None], 0)?;
                self.emit(Op::Shl, Ty::U32, src, [r(src), imm(1), None], 0)?;
                self.emit(Op::Add, Ty::U32, src, [r(src), imm(m + h), None], 0)?;
                self.emit(Op::Shfl, Ty::U64, row, [r(base), r(src), imm(0x1F)], ShflMode::Idx as u16)?;
                self.emit(Op::Add, Ty::U64, row, [r(row), r(off), None], 0)?;
                self.mem_access(Op::Ld, Ty::U16, (space, 0, row, 0, false), 0, part)?;
            }
            self.emit(Op::Shl, Ty::U32, hi, [r(hi), imm(16), None], 0)?;
            self.emit(Op::Or, Ty::U32, d, [r(lo), r(hi), None], 0)?;
        }
        Ok(())
    }
}
