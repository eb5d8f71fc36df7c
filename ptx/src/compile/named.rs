//! Instruction selection for named barriers with a thread count: `bar.sync id, count`,
//! `bar.arrive id, count` and their `barrier.sync`/`barrier.arrive` spellings, as an arrival
//! ([`Op::Bar`] with [`BAR_NAMED`], the count in `a`) and, for a sync, a wait
//! ([`BAR_NAMED_WAIT`]) on the barrier's number (m bits 8:5).

use super::{Kc, Result, ast};
use alloc::format;
use hw::isa::{BAR_ID_SHIFT, BAR_NAMED, BAR_NAMED_WAIT, Instr, NAMED_BARRIERS, Op, RZ, Ty};

impl Kc<'_> {
    /// A named barrier `id` with the thread count in the second operand.
    pub(crate) fn named_barrier(&mut self, i: &ast::Instr, id: u64) -> Result<()> {
        let op = &i.op;
        if id >= NAMED_BARRIERS as u64 {
            return Err(self.err(format!("`{op}`: barrier {id} (a block has {NAMED_BARRIERS})")));
        }
        if i.has("red") || i.args.len() != 2 {
            return Err(self.err(format!("`{op}.{}` needs a barrier and a thread count", i.mods.join("."))));
        }
        let m = BAR_NAMED | (id as u16) << BAR_ID_SHIFT;
        let count = self.src(self.arg(i, 1)?, Ty::U32)?;
        self.emit(Op::Bar, Ty::U32, RZ, [Some(count), None, None], m)?;
        if !i.has("arrive") {
            let mut w = Instr::new(Op::Bar, Ty::U32);
            w.w0.set_m(m | BAR_NAMED_WAIT);
            self.push(w);
        }
        Ok(())
    }
}
