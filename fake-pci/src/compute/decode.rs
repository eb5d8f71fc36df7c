//! Decode: device instructions as the executor wants them (fields, immediate slot, highest
//! register) and the per-grid decode cache filled on first fetch through the MMU.

use super::*;

/// A decoded, validated instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct D {
    pub(crate) op: Op,
    pub(crate) ty: Ty,
    pub(crate) guard: u8,
    pub(crate) neg: bool,
    pub(crate) dst: u8,
    pub(crate) a: u8,
    pub(crate) b: u8,
    pub(crate) c: u8,
    pub(crate) imm_slot: Imm,
    pub(crate) m: u16,
    pub(crate) imm: u64,
    /// One past the highest register the instruction touches (vectors included).
    pub(crate) top: u16,
}

impl D {
    /// Whether operand `k` (0 = a, 1 = b, 2 = c) is the immediate.
    #[inline(always)]
    pub(crate) fn is_imm(&self, k: usize) -> bool {
        matches!((k, self.imm_slot), (0, Imm::A) | (1, Imm::B) | (2, Imm::C))
    }
}

#[inline]
pub(crate) fn decode(i: Instr) -> Option<D> {
    let w = i.w0;
    let op = w.op_or_err().ok()?;
    // Vector length 8 (log2 field value 3) is reserved.
    if matches!(op, Op::Ld | Op::St) && (w.m() >> 3) & 3 == 3 {
        return None;
    }
    let vec = if matches!(op, Op::Ld | Op::St) { MemMods::vec(w.m()) as u16 } else { 1 };
    let regs = [w.guard(), w.dst(), w.a(), w.b(), w.c()];
    let top = regs
        .iter()
        .enumerate()
        .filter(|&(_, &r)| r != RZ)
        .map(|(k, &r)| r as u16 + if (k == 1 && op == Op::Ld) || (k == 3 && op == Op::St) { vec } else { 1 })
        .max()
        .unwrap_or(0);
    Some(D {
        top,
        op,
        ty: w.ty_or_err().ok()?,
        guard: w.guard(),
        neg: w.guard_neg(),
        dst: w.dst(),
        a: w.a(),
        b: w.b(),
        c: w.c(),
        imm_slot: w.imm_or_err().ok()?,
        m: w.m(),
        imm: i.imm,
    })
}

impl Exec<'_, '_> {
    #[inline]
    pub(crate) fn fetch(&mut self, pc: u32) -> Result<D, GridError> {
        let i = pc as usize;
        if let Some(Some(d)) = self.code.get(i) {
            return Ok(*d);
        }
        let trap = GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc });
        let va = self.r.code.wrapping_add(pc as u64 * INSTR_BYTES);
        let mut b = [0u8; 16];
        self.cx.tlb.read_va(self.cx.mem, &self.cx.space, va, &mut b).map_err(GridError::Fault)?;
        let d = decode(Instr::from_bytes(&b)).ok_or(trap)?;
        if i >= self.code.len() {
            self.code.resize(i + 1, None);
        }
        self.code[i] = Some(d);
        Ok(d)
    }

    /// The instruction a warp issues next (after popping finished reconvergence frames);
    /// `None` when the warp has ended.
    #[inline]
    pub(crate) fn peek(&mut self, w: &mut Warp) -> Result<Option<D>, GridError> {
        loop {
            let Some(top) = w.stack.last().copied() else { return Ok(None) };
            if top.pc == top.rpc || top.mask & !w.exited == 0 {
                w.stack.pop();
                continue;
            }
            return self.fetch(top.pc).map(Some);
        }
    }
}
