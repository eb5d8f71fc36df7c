//! Decode: device instructions as the executor wants them (fields, immediate slot, highest
//! register) and the per-grid decode cache filled on first fetch through the MMU, with
//! constant operands ([`ConstRef`]) read from the grid's banks.
use super::{
    ConstRef, Exec, GridError, INSTR_BYTES, Imm, Instr, LAUNCH_BYTES, MAX_GPRS, Op, PRED_BASE, PREDS, RZ, Trap,
    TrapReason, Ty, Warp, group_lengths,
};

/// A decoded, validated instruction. Register fields are slots of the warp's register
/// array: general registers keep their numbers, the predicate registers `P0..P6`
/// (`R248..R254`) come right after the kernel's general registers.
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
    /// The immediate: a constant operand's value once fetched ([`Exec::fetch`]).
    pub(crate) imm: u64,
    /// The immediate slot reads this constant (per grid: never kept across grids).
    pub(crate) cref: Option<ConstRef>,
    /// Consecutive registers dst, a and b name ([`group_lengths`]: vectors, texels,
    /// coordinates).
    pub(crate) groups: [u8; 3],
}

impl D {
    /// Whether operand `k` (0 = a, 1 = b, 2 = c) is the immediate.
    #[inline(always)]
    pub(crate) fn is_imm(&self, k: usize) -> bool {
        matches!((k, self.imm_slot), (0, Imm::A) | (1, Imm::B) | (2, Imm::C))
    }
}

/// Register slots per thread of a kernel with `gprs` general registers: those, then the
/// predicate registers.
#[inline]
pub(crate) fn slots(gprs: u32) -> usize {
    gprs.max(1) as usize + PREDS as usize
}

/// Decode one instruction of a kernel with `gprs` general registers (at most
/// [`MAX_GPRS`]); `None` (an illegal instruction) for a bad field or a register the
/// kernel does not have (vectors included).
#[inline]
pub(crate) fn decode(i: Instr, gprs: u32) -> Option<D> {
    let w = i.w0;
    let op = w.op_or_err().ok()?;
    // Vector length 8 (log2 field value 3) is reserved.
    if matches!(op, Op::Ld | Op::St) && (w.m() >> 3) & 3 == 3 {
        return None;
    }
    let (dst_n, a_n, b_n) = group_lengths(op, w.m())?;
    let gprs = gprs.clamp(1, MAX_GPRS);
    // A field's slot; `n` registers from it must exist.
    let slot = |r: u8, n: u32| -> Option<u8> {
        if r == RZ {
            Some(RZ)
        } else if r >= PRED_BASE {
            let p = (r - PRED_BASE) as u32;
            (p + n <= PREDS as u32).then_some((gprs + p) as u8)
        } else {
            (r as u32 + n <= gprs).then_some(r)
        }
    };
    let imm_slot = w.imm_or_err().ok()?;
    // The immediate slot's field: RZ, or a constant operand.
    let mut fields = [w.a(), w.b(), w.c()];
    let mut cref = None;
    if let Some(k) = [Imm::A, Imm::B, Imm::C].iter().position(|&s| s == imm_slot)
        && fields[k] != RZ
    {
        cref = Some(ConstRef::of_field(fields[k])?);
        fields[k] = RZ;
    }
    Some(D {
        op,
        ty: w.ty_or_err().ok()?,
        guard: slot(w.guard(), 1)?,
        neg: w.guard_neg(),
        dst: slot(w.dst(), dst_n)?,
        a: slot(fields[0], a_n)?,
        b: slot(fields[1], b_n)?,
        c: slot(fields[2], 1)?,
        imm_slot,
        m: w.m(),
        imm: i.imm,
        cref,
        groups: [dst_n as u8, a_n as u8, b_n as u8],
    })
}

/// `buf.len()` bytes at `at` of a constant bank; bytes beyond its end read as zero.
#[inline]
pub(crate) fn bank_read(bank: &[u8], at: u64, buf: &mut [u8]) {
    let start = usize::try_from(at).unwrap_or(usize::MAX);
    match start.checked_add(buf.len()).and_then(|end| bank.get(start..end)) {
        Some(src) => buf.copy_from_slice(src),
        None => {
            for (k, x) in buf.iter_mut().enumerate() {
                *x = start.checked_add(k).and_then(|i| bank.get(i)).copied().unwrap_or(0);
            }
        }
    }
}

impl Exec<'_, '_> {
    #[inline]
    pub(crate) fn fetch(&mut self, pc: u32) -> Result<D, GridError> {
        let i = pc as usize;
        if let Some(Some(d)) = self.code.get(i) {
            return Ok(*d);
        }
        self.fetch_miss(pc)
    }

    /// Fetch and decode an instruction not in the decode cache (rare: kept out of line so
    /// the hit path stays small).
    #[cold]
    #[inline(never)]
    fn fetch_miss(&mut self, pc: u32) -> Result<D, GridError> {
        let i = pc as usize;
        let trap = GridError::Trap(Trap { reason: TrapReason::IllegalInstruction, pc });
        let va = self.r.code.wrapping_add(pc as u64 * INSTR_BYTES);
        let mut b = [0u8; 16];
        self.cx.tlb.read_va(self.cx.mem, &self.cx.space, va, &mut b).map_err(GridError::Fault)?;
        let mut d = decode(Instr::from_bytes(&b), self.r.regs).ok_or(trap)?;
        if let Some(c) = d.cref {
            d.imm = self.constant(c, d.imm);
        }
        if i >= self.code.len() {
            self.code.resize(i + 1, None);
        }
        self.code[i] = Some(d);
        Ok(d)
    }

    /// The value of constant operand `c` at byte offset `at`, as this grid sees it.
    fn constant(&self, c: ConstRef, at: u64) -> u64 {
        let mut buf = [0u8; 8];
        let n = c.bytes() as usize;
        if c.launch() {
            let mut launch = [0u8; LAUNCH_BYTES as usize];
            let shape = self.r.block.iter().chain(self.r.grid.iter()).chain(self.r.envregs.iter());
            for (k, v) in shape.enumerate() {
                launch[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
            bank_read(&launch, at, &mut buf[..n]);
        } else {
            bank_read(self.banks.get(c.bank() as usize).map_or(&[], |b| b.as_slice()), at, &mut buf[..n]);
        }
        let raw = u64::from_le_bytes(buf);
        let bits = 8 * n as u32;
        if c.signed() && bits < 64 { ((raw << (64 - bits)) as i64 >> (64 - bits)) as u64 } else { raw }
    }

    /// The instruction a warp issues next (after popping finished reconvergence frames);
    /// `None` when the warp has ended.
    #[inline]
    pub(crate) fn peek(&mut self, w: &mut Warp) -> Result<Option<D>, GridError> {
        match self.settle(w)? {
            Some(top) => self.fetch(top.pc).map(Some),
            None => Ok(None),
        }
    }
}
