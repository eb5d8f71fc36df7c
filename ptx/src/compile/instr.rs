//! Instruction selection, the instructions: each PTX instruction of the supported subset
//! becomes device instructions (arithmetic, conversions, comparisons, warp-level operations).

use super::{Kc, Operand, Reloc, Result, Segment, Src, ast, half, uty, wider};
use alloc::format;
use alloc::vec::Vec;
use hw::isa::{
    AtomOp, ClusterOp, Cmp, CvtaMods, FLOAT_FTZ, FLOAT_SAT, GENERIC_WINDOW_BYTES, Imm, Instr, MemMods, MulMode, Op,
    PRMT_MODES, RZ, Round, ShflMode, Space, Sreg, Ty,
};

impl<'a> Kc<'a> {
    pub(crate) fn instr(&mut self, i: &ast::Instr) -> Result<()> {
        let op = i.op.as_str();
        if NOT_IMPLEMENTED.contains(&op) {
            return Err(self.pos.unsupported(format!(
                "`{op}.{}` is a PTX instruction rgdev does not implement (CUDA_ERROR_NOT_SUPPORTED)",
                i.mods.join(".")
            )));
        }
        if !matches!(op, "mov" | "ld" | "ldu" | "st" | "selp" | "cvt" | "atom" | "red" | "shfl" | "wmma" | "mma")
            && let Some(&ty) = self.types(i).last()
            && ty.half()
        {
            return self.half(i, ty);
        }
        match op {
            "mov" => self.mov(i),
            "ld" | "ldu" => self.ld(i),
            "st" => self.st(i),
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl" | "shr" => {
                let ty = self.ty(i)?;
                let isa = match op {
                    "add" => Op::Add,
                    "sub" => Op::Sub,
                    "mul" => Op::Mul,
                    "div" => Op::Div,
                    "rem" => Op::Rem,
                    "min" => Op::Min,
                    "max" => Op::Max,
                    "and" => Op::And,
                    "or" => Op::Or,
                    "xor" => Op::Xor,
                    "shl" => Op::Shl,
                    _ => Op::Shr,
                };
                let m = self.mul_mode(i) as u16 | self.round(i) << 2 | self.ftz(i, ty);
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let bty = if matches!(op, "shl" | "shr") { Ty::U32 } else { ty };
                let b = self.src(self.arg(i, 2)?, bty)?;
                self.emit(isa, ty, d, [Some(a), Some(b), None], m).map(|_| ())
            }
            "mad" | "fma" => {
                let ty = self.ty(i)?;
                let m = self.mul_mode(i) as u16 | self.round(i) << 2 | self.ftz(i, ty);
                let d = self.dst(self.arg(i, 0)?)?;
                let wide = self.mul_mode(i) == MulMode::Wide;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let b = self.src(self.arg(i, 2)?, ty)?;
                let cty = if wide { wider(ty) } else { ty };
                let c = self.src(self.arg(i, 3)?, cty)?;
                self.emit(Op::Mad, ty, d, [Some(a), Some(b), Some(c)], m).map(|_| ())
            }
            "neg" | "abs" | "not" | "popc" | "clz" | "brev" | "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "ex2"
            | "lg2" | "tanh" => {
                let ty = self.ty(i)?;
                if op == "tanh" && ty != Ty::F32 {
                    return Err(self.err(format!("`tanh.{}` is not supported for half precision", i.mods.join("."))));
                }
                let isa = match op {
                    "neg" => Op::Neg,
                    "abs" => Op::Abs,
                    "not" => Op::Not,
                    "popc" => Op::Popc,
                    "clz" => Op::Clz,
                    "brev" => Op::Brev,
                    "sqrt" => Op::Sqrt,
                    "rcp" => Op::Rcp,
                    "rsqrt" => Op::Rsqrt,
                    "sin" => Op::Sin,
                    "cos" => Op::Cos,
                    "ex2" => Op::Ex2,
                    "tanh" => Op::Tanh,
                    _ => Op::Lg2,
                };
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                self.emit(isa, ty, d, [Some(a), None, None], self.round(i) << 2 | self.ftz(i, ty)).map(|_| ())
            }
            "setp" | "set" => self.setp(i),
            "bfi" => self.bfi(i),
            "bfind" => self.bfind(i),
            "mul24" | "mad24" => self.mul24(i),
            "tex" | "tld4" | "txq" | "suq" | "suld" | "sust" => self.texture(i),
            "selp" | "slct" => {
                let tys = self.types(i);
                let ty = *tys.first().ok_or_else(|| self.err("`selp` needs a type"))?;
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let b = self.src(self.arg(i, 2)?, ty)?;
                if op == "selp" {
                    let c = self.src(self.arg(i, 3)?, Ty::Pred)?;
                    self.emit(Op::Selp, ty, d, [Some(a), Some(b), Some(c)], 0).map(|_| ())
                } else {
                    let cty = *tys.get(1).unwrap_or(&Ty::S32);
                    let c = self.src(self.arg(i, 3)?, cty)?;
                    self.emit(Op::Slct, ty, d, [Some(a), Some(b), Some(c)], cty as u16).map(|_| ())
                }
            }
            "cvt" => self.convert(i),
            "cvta" if i.has("const") => {
                // The constant segment's buffer is device memory: generic = offset + its base.
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, Ty::U64)?;
                let at = match a {
                    Src::Imm(v, false) if !i.has("to") => {
                        let mut x = Instr::new(Op::Mov, Ty::U64);
                        x.w0.set_dst(d);
                        x.w0.set_imm(Imm::A);
                        x.imm = v;
                        self.push(x)
                    }
                    _ => {
                        let op = if i.has("to") { Op::Sub } else { Op::Add };
                        let a = self.in_reg(a)?;
                        self.emit(op, Ty::U64, d, [Some(Src::Reg(a)), Some(Src::Imm(0, false)), None], 0)?
                    }
                };
                self.prog.relocs.push(Reloc { at, segment: Segment::Const });
                Ok(())
            }
            "cvta" => {
                let to = i.has("to");
                let space = if i.has("global") {
                    Space::Global
                } else if i.has("shared") {
                    Space::Shared
                } else if i.has("local") {
                    Space::Local
                } else {
                    return Err(self.err(format!("`cvta.{}` is not supported", i.mods.join("."))));
                };
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, Ty::U64)?;
                if space == Space::Global {
                    return self.emit(Op::Mov, Ty::U64, d, [Some(a), None, None], 0).map(|_| ());
                }
                self.emit(Op::Cvta, Ty::U64, d, [Some(a), None, None], CvtaMods { space: space as u16, to }.encode())
                    .map(|_| ())
            }
            "isspacep" => {
                // Whether a generic address is in a window: its offset there below the
                // window's size (global: in neither window; const and param: never, as
                // rgdev's constant segment is global memory and parameters have no window).
                let p = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, Ty::U64)?;
                let window = |k: &mut Self, space: Space| -> Result<u8> {
                    let t = k.scratch()?;
                    let m = CvtaMods { space: space as u16, to: true }.encode();
                    k.emit(Op::Cvta, Ty::U64, t, [Some(a), None, None], m)?;
                    Ok(t)
                };
                let (t, cmp) = match () {
                    _ if i.has("shared") || i.mods.iter().any(|m| m.starts_with("shared")) => {
                        (window(self, Space::Shared)?, Cmp::Lt)
                    }
                    _ if i.has("local") => (window(self, Space::Local)?, Cmp::Lt),
                    _ if i.has("global") => {
                        let (s, l) = (window(self, Space::Shared)?, window(self, Space::Local)?);
                        self.emit(Op::Min, Ty::U64, s, [Some(Src::Reg(s)), Some(Src::Reg(l)), None], 0)?;
                        (s, Cmp::Ge)
                    }
                    _ if i.has("const") || i.has("param") => {
                        let t = self.scratch()?;
                        self.emit(Op::Mov, Ty::U64, t, [Some(Src::Imm(0, false)), None, None], 0)?;
                        (t, Cmp::Gt) // 0 > window: false
                    }
                    _ => return Err(self.err(format!("`isspacep.{}` is not supported", i.mods.join(".")))),
                };
                let w = Some(Src::Imm(GENERIC_WINDOW_BYTES, false));
                self.emit(Op::Setp, Ty::U64, p, [Some(Src::Reg(t)), w, None], cmp as u16).map(|_| ())
            }
            "bra" | "brx" => {
                if op == "brx" {
                    return Err(self.err("`brx.idx` (indirect branches) is not supported"));
                }
                let Operand::Name(l) = self.arg(i, 0)? else { return Err(self.err("`bra` needs a label")) };
                self.branch(l.clone())
            }
            "ret" | "exit" => self.branch("\u{0}exit".into()),
            "bar" | "barrier" if i.has("warp") => {
                // `bar.warp.sync membermask` (`__syncwarp`): the lanes in the mask meet.
                let mask = self.src(self.arg(i, 0)?, Ty::U32)?;
                self.emit(Op::Bar, Ty::U32, RZ, [Some(mask), None, None], hw::isa::BAR_WARP).map(|_| ())
            }
            "bar" | "barrier" if i.has("red") => {
                // `bar.red.popc.u32 d, id, p` / `bar.red.{and,or}.pred d, id, p`: m[1:0] the
                // reduction (1 popc, 2 and, 3 or), a the predicate.
                let mode = if i.has("popc") {
                    1
                } else if i.has("and") {
                    2
                } else if i.has("or") {
                    3
                } else {
                    return Err(self.err(format!("`{op}.{}`: unknown reduction", i.mods.join("."))));
                };
                if !matches!(i.args.get(1), Some(Operand::Int(_))) || i.args.len() != 3 {
                    return Err(
                        self.err(format!("`{op}.red` with a register barrier id or a thread count is not supported"))
                    );
                }
                let Some(Operand::Int(id)) = i.args.get(1) else { unreachable!("checked") };
                let id = *id;
                let d = self.dst(self.arg(i, 0)?)?;
                let p = self.src(self.arg(i, 2)?, Ty::Pred)?;
                let p = self.in_reg(p)?;
                let mut b = Instr::new(Op::Bar, if mode == 1 { Ty::U32 } else { Ty::Pred });
                b.w0.set_dst(d);
                b.w0.set_a(p);
                b.w0.set_m(mode);
                b.imm = id;
                self.push(b);
                Ok(())
            }
            // The cluster barrier: `barrier.cluster.arrive` then `.wait` (alone, both).
            "barrier" if i.has("cluster") => {
                let (arrive, wait) = (!i.has("wait"), !i.has("arrive"));
                for (yes, op) in [(arrive, ClusterOp::Arrive), (wait, ClusterOp::Wait)] {
                    if yes {
                        let mut b = Instr::new(Op::Cluster, Ty::U32);
                        b.w0.set_m(op as u16);
                        self.push(b);
                    }
                }
                Ok(())
            }
            // The address in cluster block `rank` of a shared address (`.shared::cluster`:
            // a 32-bit shared address; otherwise generic), and the rank owning one.
            "mapa" => {
                let ty = self.ty(i)?;
                let op = if i.has("shared") { ClusterOp::Mapa } else { ClusterOp::MapaGeneric };
                let (d, a) = (self.dst(self.arg(i, 0)?)?, self.src(self.arg(i, 1)?, ty)?);
                let rank = self.src(self.arg(i, 2)?, Ty::U32)?;
                self.emit(Op::Cluster, ty, d, [Some(a), Some(rank), None], op as u16).map(|_| ())
            }
            "getctarank" => {
                let ty = self.ty(i)?;
                let op = if i.has("shared") { ClusterOp::Rank } else { ClusterOp::RankGeneric };
                let (d, a) = (self.dst(self.arg(i, 0)?)?, self.src(self.arg(i, 1)?, ty)?);
                self.emit(Op::Cluster, Ty::U32, d, [Some(a), None, None], op as u16).map(|_| ())
            }
            "bar" | "barrier" => {
                let id = match i.args.first() {
                    Some(Operand::Int(v)) => *v,
                    None => 0,
                    _ => return Err(self.err(format!("`{op}` with a register barrier id is not supported"))),
                };
                if i.args.len() > 1 || i.has("arrive") {
                    return self.named_barrier(i, id);
                }
                let mut b = Instr::new(Op::Bar, Ty::U32);
                b.imm = id;
                self.push(b);
                Ok(())
            }
            "membar" | "fence" => {
                // m bit 0: system scope (`membar.sys`, `fence.*.sys`: __threadfence_system).
                let mut x = Instr::new(Op::Membar, Ty::U32);
                x.w0.set_m(u16::from(i.mods.iter().any(|m| m == "sys")));
                self.push(x);
                Ok(())
            }
            "atom" | "red" => self.atom(i),
            "shfl" => self.shfl(i),
            "vote" => self.vote(i),
            "redux" => self.redux(i),
            "cp" if i.has("async") => self.cp_async(i),
            "match" => self.match_sync(i),
            "wmma" => self.wmma(i),
            "mma" => self.mma_sync(i),
            "ldmatrix" => self.ldmatrix(i),
            "mbarrier" => self.mbarrier(i),
            // A cache hint: rgdev's caches hold tags only and fill on demand; nothing to do.
            "prefetch" | "prefetchu" => Ok(()),
            "dp4a" | "dp2a" => self.dot(i),
            "nanosleep" => {
                self.src(self.arg(i, 0)?, Ty::U32)?;
                Ok(())
            }
            "activemask" => {
                let d = self.dst(self.arg(i, 0)?)?;
                let mut s = Instr::new(Op::S2r, Ty::U32);
                s.w0.set_dst(d);
                s.imm = Sreg::ActiveMask as u64;
                self.push(s);
                Ok(())
            }
            "bfe" | "prmt" | "shf" => {
                let ty = self.ty(i)?;
                let isa = match op {
                    "bfe" => Op::Bfe,
                    "prmt" => Op::Prmt,
                    _ => Op::Shf,
                };
                let m = match op {
                    "shf" => i.has("r") as u16 | (i.has("clamp") as u16) << 1,
                    "prmt" => PRMT_MODES.iter().skip(1).position(|p| i.has(p)).map_or(0, |k| k as u16 + 1),
                    _ => 0,
                };
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let b = self.src(self.arg(i, 2)?, Ty::U32)?;
                let c = self.src(self.arg(i, 3)?, Ty::U32)?;
                self.emit(isa, ty, d, [Some(a), Some(b), Some(c)], m).map(|_| ())
            }
            "trap" => {
                self.push(Instr::new(Op::Trap, Ty::U32));
                Ok(())
            }
            crate::indirect::INVALID_PC => {
                let mut t = Instr::new(Op::Trap, Ty::U32);
                t.w0.set_m(1);
                self.push(t);
                Ok(())
            }
            "call" => {
                if self.guard.is_some() {
                    return Err(self.err("a guarded `call` reached the code generator (`indirect` lowers it)"));
                }
                let callee = self
                    .calls
                    .iter()
                    .find(|c| c.0 == self.stmt)
                    .map(|c| c.1.clone())
                    .ok_or_else(|| self.err("bad `call`"))?;
                if !self.frames.contains_key(&callee) {
                    return Err(self.err(format!("call to unknown function `{callee}`")));
                }
                if let Some(call) = self.device_runtime_call(&callee) {
                    return self.runtime_call(&callee, call);
                }
                let at = self.push(Instr::new(Op::Call, Ty::U32));
                self.call_fixups.push((at, callee, self.pos));
                Ok(())
            }
            "elect" if i.has("sync") => self.elect(i),
            // A hint that moves registers between warpgroups (sm_90a): rgdev's register file
            // is the kernel's allocation throughout; nothing to do.
            "setmaxnreg" => Ok(()),
            // Programmatic dependent launch: a grid's work starts only when the previous
            // grid of its stream has ended and its memory is visible, so waiting for the
            // prerequisite grids and letting dependents launch have nothing left to do.
            "griddepcontrol" => Ok(()),
            _ => Err(self.err(format!(
                "unsupported instruction `{}{}{}`",
                op,
                if i.mods.is_empty() { "" } else { "." },
                i.mods.join(".")
            ))),
        }
    }

    /// The instruction and mode of a call to a function the device runtime provides
    /// (`vprintf`, `__assertfail`: [`Op::Printf`]; `malloc`, `free`: [`Op::Heap`]) when the
    /// module declares it without defining it.
    fn device_runtime_call(&self, callee: &str) -> Option<(Op, u16)> {
        let call = match callee {
            "vprintf" => (Op::Printf, hw::isa::printf_mode::VPRINTF),
            "__assertfail" => (Op::Printf, hw::isa::printf_mode::ASSERT),
            "malloc" => (Op::Heap, hw::heap::mode::MALLOC),
            "free" => (Op::Heap, hw::heap::mode::FREE),
            _ => return None,
        };
        (!self.frames.get(callee).is_some_and(|f| f.defined)).then_some(call)
    }

    /// A call of a device runtime function: `op` in `mode` on the callee's frame (the
    /// arguments the call site stored there), the result (`vprintf`'s count, `malloc`'s
    /// pointer) stored to its return slot; `__assertfail` then traps (cudaErrorAssert).
    fn runtime_call(&mut self, callee: &str, (op, mode): (Op, u16)) -> Result<()> {
        let fr = &self.frames[callee];
        let first = fr.params.first().map_or(0, |p| p.0);
        let offs: Vec<u32> = fr.params.iter().map(|p| p.0 - first).collect();
        let (want, ret, rty): (&[u32], bool, Ty) = match (op, mode) {
            (Op::Printf, hw::isa::printf_mode::VPRINTF) => (&[0, 8], true, Ty::U32),
            (Op::Printf, _) => (&[0, 8, 16, 24, 32], false, Ty::U32),
            (_, hw::heap::mode::MALLOC) => (&[0], true, Ty::U64),
            _ => (&[0], false, Ty::U64),
        };
        if offs.len() != want.len() || offs.iter().zip(want).any(|(a, b)| a != b) || (ret && fr.rets.len() != 1) {
            return Err(self.err(format!("`{callee}` is declared with a prototype the device runtime does not have")));
        }
        let ret_slot = fr.rets.first().map(|r| r.0);
        let d = if ret { self.scratch()? } else { RZ };
        let mut x = Instr::new(op, rty);
        x.w0.set_dst(d);
        x.w0.set_m(mode);
        x.imm = first as u64;
        self.push(x);
        if let Some(slot) = ret_slot.filter(|_| ret) {
            let mut st = Instr::new(Op::St, rty);
            st.w0.set_a(RZ);
            st.w0.set_b(d);
            st.w0.set_m(MemMods::encode(Space::Local, 1, 0));
            st.imm = slot as u64;
            self.push(st);
        } else if op == Op::Printf {
            self.push(Instr::new(Op::Trap, Ty::U32));
        }
        Ok(())
    }

    pub(crate) fn mul_mode(&self, i: &ast::Instr) -> MulMode {
        if i.has("wide") {
            MulMode::Wide
        } else if i.has("hi") {
            MulMode::Hi
        } else {
            MulMode::Lo
        }
    }

    /// [`FLOAT_FTZ`] for an `.ftz` instruction of type `.f32` or `.f16` (the modifier applies
    /// to those only), and [`FLOAT_SAT`] for an `.f32` one with `.sat`.
    pub(crate) fn ftz(&self, i: &ast::Instr, ty: Ty) -> u16 {
        let ftz = if matches!(ty, Ty::F32 | Ty::F16 | Ty::F16x2) && i.has("ftz") { FLOAT_FTZ } else { 0 };
        ftz | if ty == Ty::F32 && i.has("sat") { FLOAT_SAT } else { 0 }
    }

    pub(crate) fn round(&self, i: &ast::Instr) -> u16 {
        let r = if i.has("rz") {
            Round::Rz
        } else if i.has("rm") {
            Round::Rm
        } else if i.has("rp") {
            Round::Rp
        } else if i.has("rn") {
            Round::Rn
        } else {
            Round::Default
        };
        r as u16
    }

    pub(crate) fn mov(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let w = ty.bytes() * 8;
        match (self.arg(i, 0)?, self.arg(i, 1)?) {
            (Operand::Vector(parts), src) => {
                // Unpack: part k = bits [k*w/n, (k+1)*w/n) of the source.
                let s = self.src(src, ty)?;
                let pw = w / parts.len() as u32;
                let pty = uty(pw);
                for (k, p) in parts.iter().enumerate() {
                    let d = self.dst(p)?;
                    if d == RZ {
                        continue;
                    }
                    let sh = self.scratch()?;
                    self.emit(Op::Shr, Ty::U64, sh, [Some(s), Some(Src::Imm(k as u64 * pw as u64, false)), None], 0)?;
                    self.emit(Op::Mov, pty, d, [Some(Src::Reg(sh)), None, None], 0)?;
                }
                Ok(())
            }
            (d, Operand::Vector(parts)) => {
                let d = self.dst(d)?;
                let pw = w / parts.len() as u32;
                let acc = self.scratch()?;
                self.mov_imm(acc, 0, false);
                for (k, p) in parts.iter().enumerate() {
                    let s = self.src(p, uty(pw))?;
                    let t = self.scratch()?;
                    let mask = if pw == 64 { u64::MAX } else { (1u64 << pw) - 1 };
                    self.emit(Op::And, Ty::U64, t, [Some(s), Some(Src::Imm(mask, false)), None], 0)?;
                    self.emit(
                        Op::Shl,
                        Ty::U64,
                        t,
                        [Some(Src::Reg(t)), Some(Src::Imm(k as u64 * pw as u64, false)), None],
                        0,
                    )?;
                    self.emit(Op::Or, Ty::U64, acc, [Some(Src::Reg(acc)), Some(Src::Reg(t)), None], 0)?;
                }
                self.emit(Op::Mov, ty, d, [Some(Src::Reg(acc)), None, None], 0).map(|_| ())
            }
            (d, s) => {
                let d = self.dst(d)?;
                if let Operand::Name(n) = s
                    && let Some(sr) = Self::sreg(n)
                {
                    let mut x = Instr::new(Op::S2r, ty);
                    x.w0.set_dst(d);
                    x.imm = sr as u64;
                    self.push(x);
                    return Ok(());
                }
                let s = self.src(s, ty)?;
                self.emit(Op::Mov, ty, d, [Some(s), None, None], 0).map(|_| ())
            }
        }
    }

    pub(crate) fn setp(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let cmp = i.mods.first().and_then(|c| half::cmp_of(c)).ok_or_else(|| self.err("`setp` needs a comparison"))?;
        let combine = if i.has("and") {
            Some(Op::And)
        } else if i.has("or") {
            Some(Op::Or)
        } else if i.has("xor") {
            Some(Op::Xor)
        } else {
            None
        };
        let two = super::copies::two_destinations(i);
        let (p, q) = match i.op.as_str() {
            // `set`: the comparison into a predicate, then all ones (1.0 for `.f32`) or 0.
            "set" => (self.scratch()?, None),
            _ => (self.dst(self.arg(i, 0)?)?, if two { Some(self.dst(self.arg(i, 1)?)?) } else { None }),
        };
        let first = if two { 2 } else { 1 };
        let a = self.src(self.arg(i, first)?, ty)?;
        let b = self.src(self.arg(i, first + 1)?, ty)?;
        let c = match combine {
            Some(_) => Some(self.src(self.arg(i, first + 2)?, Ty::Pred)?),
            None => None,
        };
        let t = if combine.is_some() || q.is_some() { self.scratch()? } else { p };
        self.emit(Op::Setp, ty, t, [Some(a), Some(b), None], cmp as u16 | self.ftz(i, ty))?;
        if let Some(q) = q {
            let nt = self.scratch()?;
            self.emit(Op::Xor, Ty::Pred, nt, [Some(Src::Reg(t)), Some(Src::Imm(1, false)), None], 0)?;
            match (combine, c) {
                (Some(op), Some(c)) => {
                    self.emit(op, Ty::Pred, q, [Some(Src::Reg(nt)), Some(c), None], 0)?;
                }
                _ => {
                    self.emit(Op::Mov, Ty::Pred, q, [Some(Src::Reg(nt)), None, None], 0)?;
                }
            }
        }
        match (combine, c) {
            (Some(op), Some(c)) => self.emit(op, Ty::Pred, p, [Some(Src::Reg(t)), Some(c), None], 0).map(|_| ()),
            _ if t != p => self.emit(Op::Mov, Ty::Pred, p, [Some(Src::Reg(t)), None, None], 0).map(|_| ()),
            _ => Ok(()),
        }?;
        if i.op == "set" {
            let dty = *self.types(i).first().ok_or_else(|| self.err("`set` needs a destination type"))?;
            let yes = set_true(dty).ok_or_else(|| self.err("`set` gives a .u32, .s32, .u16, .s16 or float result"))?;
            let d = self.dst(self.arg(i, 0)?)?;
            let (yes, no) = (Src::Imm(yes, false), Src::Imm(0, false));
            self.emit(Op::Selp, dty, d, [Some(yes), Some(no), Some(Src::Reg(p))], 0)?;
        }
        Ok(())
    }

    /// `mul24`/`mad24` (PTX 1.x): the product of the low 24 bits of a and b (sign- or
    /// zero-extended as the type says), `.lo` its low 32 bits, `.hi` its bits 47..16;
    /// `mad24` adds c.
    pub(crate) fn mul24(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        if !matches!(ty, Ty::U32 | Ty::S32) || i.has("sat") {
            return Err(self.err(format!("`{}.{}` is not supported", i.op, i.mods.join("."))));
        }
        let d = self.dst(self.arg(i, 0)?)?;
        let mut x = [RZ; 2];
        for (k, r) in x.iter_mut().enumerate() {
            let s = self.src(self.arg(i, k + 1)?, ty)?;
            let t = self.scratch()?;
            let eight = Some(Src::Imm(8, false));
            self.emit(Op::Shl, ty, t, [Some(s), eight, None], 0)?;
            self.emit(Op::Shr, ty, t, [Some(Src::Reg(t)), eight, None], 0)?;
            *r = t;
        }
        let c = if i.op == "mad24" { Some(self.src(self.arg(i, 3)?, ty)?) } else { None };
        let (a, b) = (Some(Src::Reg(x[0])), Some(Src::Reg(x[1])));
        if i.has("hi") {
            let w = self.scratch()?;
            self.emit(Op::Mul, ty, w, [a, b, None], MulMode::Wide as u16)?;
            let wty = if ty == Ty::S32 { Ty::S64 } else { Ty::U64 };
            self.emit(Op::Shr, wty, w, [Some(Src::Reg(w)), Some(Src::Imm(16, false)), None], 0)?;
            let op = if c.is_some() { Op::Add } else { Op::Mov };
            self.emit(op, ty, d, [Some(Src::Reg(w)), c, None], 0).map(|_| ())
        } else if let Some(c) = c {
            self.emit(Op::Mad, ty, d, [a, b, Some(c)], MulMode::Lo as u16).map(|_| ())
        } else {
            self.emit(Op::Mul, ty, d, [a, b, None], MulMode::Lo as u16).map(|_| ())
        }
    }

    pub(crate) fn shfl(&mut self, i: &ast::Instr) -> Result<()> {
        let mode = if i.has("up") {
            ShflMode::Up
        } else if i.has("down") {
            ShflMode::Down
        } else if i.has("bfly") {
            ShflMode::Bfly
        } else if i.has("idx") {
            ShflMode::Idx
        } else {
            return Err(self.err("`shfl` needs a mode"));
        };
        let sync = i.has("sync");
        let n = i.args.len();
        // `shfl.sync.down.b32 d|p, a, b, c, mask` (what nvcc writes for every __shfl_*_sync):
        // p is whether the source lane is within the clamp range of d's segment.
        let with_pred = n == if sync { 6 } else { 5 };
        let first = if with_pred { 2 } else { 1 };
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, first)?, Ty::U32)?;
        let b = self.src(self.arg(i, first + 1)?, Ty::U32)?;
        let c = self.src(self.arg(i, first + 2)?, Ty::U32)?;
        let a = self.in_reg(a)?;
        if with_pred {
            let p = self.dst(self.arg(i, 1)?)?;
            // Into a scratch first: d may be one of the sources the predicate reads.
            let v = self.scratch()?;
            self.emit(Op::Shfl, Ty::U32, v, [Some(Src::Reg(a)), Some(b), Some(c)], mode as u16)?;
            self.shfl_in_range(mode, p, b, c)?;
            return self.emit(Op::Mov, Ty::U32, d, [Some(Src::Reg(v)), None, None], 0).map(|_| ());
        }
        self.emit(Op::Shfl, Ty::U32, d, [Some(Src::Reg(a)), Some(b), Some(c)], mode as u16).map(|_| ())
    }

    /// `bfi.b32/b64 d, a, b, pos, len`: b with bits [pos, pos + len) replaced by the low
    /// bits of a (pos and len taken mod 256; a field past the width is cut there, and one
    /// that starts past it leaves b as it is), as ALU operations: with shifts of the width
    /// or more giving 0, mask = !(ones << len) << pos, d = (b & !mask) | ((a << pos) & mask).
    fn bfi(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = match self.ty(i)? {
            Ty::U64 | Ty::S64 => Ty::U64,
            _ => Ty::U32,
        };
        let imm = |v: u64| Some(Src::Imm(v, false));
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, ty)?;
        let b = self.src(self.arg(i, 2)?, ty)?;
        let pos = self.src(self.arg(i, 3)?, Ty::U32)?;
        let len = self.src(self.arg(i, 4)?, Ty::U32)?;
        let (p, l) = (self.scratch()?, self.scratch()?);
        self.emit(Op::And, Ty::U32, p, [Some(pos), imm(0xFF), None], 0)?;
        self.emit(Op::And, Ty::U32, l, [Some(len), imm(0xFF), None], 0)?;
        let mask = self.scratch()?;
        self.mov_imm(mask, u64::MAX, false);
        self.emit(Op::Shl, ty, mask, [Some(Src::Reg(mask)), Some(Src::Reg(l)), None], 0)?;
        self.emit(Op::Not, ty, mask, [Some(Src::Reg(mask)), None, None], 0)?;
        self.emit(Op::Shl, ty, mask, [Some(Src::Reg(mask)), Some(Src::Reg(p)), None], 0)?;
        let f = self.scratch()?;
        self.emit(Op::Shl, ty, f, [Some(a), Some(Src::Reg(p)), None], 0)?;
        self.emit(Op::And, ty, f, [Some(Src::Reg(f)), Some(Src::Reg(mask)), None], 0)?;
        self.emit(Op::Not, ty, mask, [Some(Src::Reg(mask)), None, None], 0)?;
        self.emit(Op::And, ty, mask, [Some(Src::Reg(mask)), Some(b), None], 0)?;
        self.emit(Op::Or, ty, d, [Some(Src::Reg(mask)), Some(Src::Reg(f)), None], 0).map(|_| ())
    }

    /// `bfind[.shiftamt].{u,s}{32,64} d, a`: the position of the most significant bit that
    /// differs from the sign (signed types: of !a when a is negative), or with `.shiftamt`
    /// the left shift that brings it to the top; 0xFFFFFFFF when there is none.
    fn bfind(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let width = ty.bytes() as u64 * 8;
        let uty = if width == 64 { Ty::U64 } else { Ty::U32 };
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, ty)?;
        let x = self.scratch()?;
        if ty.signed() {
            // x = a >= 0 ? a : !a
            let n = self.scratch()?;
            self.emit(Op::Not, uty, n, [Some(a), None, None], 0)?;
            self.emit(Op::Slct, uty, x, [Some(a), Some(Src::Reg(n)), Some(a)], 0)?;
        } else {
            self.emit(Op::Mov, uty, x, [Some(a), None, None], 0)?;
        }
        let z = self.scratch()?;
        self.emit(Op::Clz, uty, z, [Some(Src::Reg(x)), None, None], 0)?;
        let none = self.scratch()?;
        self.emit(Op::Setp, uty, none, [Some(Src::Reg(x)), Some(Src::Imm(0, false)), None], Cmp::Eq as u16)?;
        let r = self.scratch()?;
        if i.has("shiftamt") {
            self.emit(Op::Mov, Ty::U32, r, [Some(Src::Reg(z)), None, None], 0)?;
        } else {
            self.emit(Op::Sub, Ty::U32, r, [Some(Src::Imm(width - 1, false)), Some(Src::Reg(z)), None], 0)?;
        }
        self.emit(
            Op::Selp,
            Ty::U32,
            d,
            [Some(Src::Imm(0xFFFF_FFFF, false)), Some(Src::Reg(r)), Some(Src::Reg(none))],
            0,
        )
        .map(|_| ())
    }

    /// p = whether a shuffle of `mode` with lane or delta `b` and clamp/segment word `c`
    /// reads a lane within the clamp range (PTX `shfl`'s predicate output): with the
    /// segment mask seg = c[12:8] and clamp c[4:0], the range is [lane & seg,
    /// (lane & seg) | (clamp & !seg)].
    fn shfl_in_range(&mut self, mode: ShflMode, p: u8, b: Src, c: Src) -> Result<()> {
        let imm = |v: u64| Some(Src::Imm(v, false));
        let lane = self.scratch()?;
        let mut s = Instr::new(Op::S2r, Ty::U32);
        s.w0.set_dst(lane);
        s.imm = Sreg::LaneId as u64;
        self.push(s);
        let seg = self.scratch()?;
        self.emit(Op::Shr, Ty::U32, seg, [Some(c), imm(8), None], 0)?;
        self.emit(Op::And, Ty::U32, seg, [Some(Src::Reg(seg)), imm(0x1F), None], 0)?;
        let min = self.scratch()?;
        self.emit(Op::And, Ty::U32, min, [Some(Src::Reg(lane)), Some(Src::Reg(seg)), None], 0)?;
        let max = self.scratch()?;
        self.emit(Op::Not, Ty::U32, max, [Some(Src::Reg(seg)), None, None], 0)?;
        self.emit(Op::And, Ty::U32, max, [Some(Src::Reg(max)), Some(c), None], 0)?;
        self.emit(Op::And, Ty::U32, max, [Some(Src::Reg(max)), imm(0x1F), None], 0)?;
        self.emit(Op::Or, Ty::U32, max, [Some(Src::Reg(max)), Some(Src::Reg(min)), None], 0)?;
        let j = self.scratch()?;
        match mode {
            ShflMode::Up => {
                // lane - b >= min, in signed arithmetic (lane - b may be negative).
                self.emit(Op::Sub, Ty::S32, j, [Some(Src::Reg(lane)), Some(b), None], 0)?;
                return self
                    .emit(Op::Setp, Ty::S32, p, [Some(Src::Reg(j)), Some(Src::Reg(min)), None], Cmp::Ge as u16)
                    .map(|_| ());
            }
            ShflMode::Down => self.emit(Op::Add, Ty::U32, j, [Some(Src::Reg(lane)), Some(b), None], 0)?,
            ShflMode::Bfly => self.emit(Op::Xor, Ty::U32, j, [Some(Src::Reg(lane)), Some(b), None], 0)?,
            ShflMode::Idx => {
                let t = self.scratch()?;
                self.emit(Op::Not, Ty::U32, t, [Some(Src::Reg(seg)), None, None], 0)?;
                self.emit(Op::And, Ty::U32, t, [Some(Src::Reg(t)), Some(b), None], 0)?;
                self.emit(Op::Or, Ty::U32, j, [Some(Src::Reg(t)), Some(Src::Reg(min)), None], 0)?
            }
        };
        self.emit(Op::Setp, Ty::U32, p, [Some(Src::Reg(j)), Some(Src::Reg(max)), None], Cmp::Le as u16).map(|_| ())
    }

    pub(crate) fn atom(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let red = i.op == "red";
        let aop = [
            ("add", AtomOp::Add),
            ("min", AtomOp::Min),
            ("max", AtomOp::Max),
            ("inc", AtomOp::Inc),
            ("dec", AtomOp::Dec),
            ("and", AtomOp::And),
            ("or", AtomOp::Or),
            ("xor", AtomOp::Xor),
            ("exch", AtomOp::Exch),
            ("cas", AtomOp::Cas),
        ]
        .iter()
        .find(|(n, _)| i.has(n))
        .map(|&(_, o)| o)
        .ok_or_else(|| self.err(format!("`{}.{}`: unsupported atomic operation", i.op, i.mods.join("."))))?;
        if ty.half() && (!matches!(aop, AtomOp::Add | AtomOp::Min | AtomOp::Max) || i.has("v2") || i.has("v4")) {
            return Err(self.err(format!("`{}.{}` is not supported", i.op, i.mods.join("."))));
        }
        let base = if red { 0 } else { 1 };
        let d = if red { RZ } else { self.dst(self.arg(i, 0)?)? };
        let (space, _, reg, addr, reloc) = self.address(i, self.arg(i, base)?)?;
        if !matches!(space, Space::Global | Space::Shared | Space::Generic) {
            return Err(self.err("atomics are supported on global, shared and generic addresses"));
        }
        let b = self.src(self.arg(i, base + 1)?, ty)?;
        let b = self.in_reg(b)?;
        let c = if aop == AtomOp::Cas {
            let cs = self.src(self.arg(i, base + 2)?, ty)?;
            self.in_reg(cs)?
        } else {
            RZ
        };
        self.atom_at(ty, (space, 0, reg, addr, reloc), d, (b, c), aop)
    }
}

/// What `set` writes for true into a destination of type `ty` (false is 0): all ones for
/// integers, 1.0 for floats; `None` for a type `set` cannot give.
pub(crate) fn set_true(ty: Ty) -> Option<u64> {
    Some(match ty {
        Ty::F32 => 1f32.to_bits() as u64,
        Ty::U32 | Ty::S32 => u32::MAX as u64,
        Ty::U16 | Ty::S16 => 0xFFFF,
        Ty::F16 | Ty::F16x2 => 0x3C00,
        Ty::Bf16 | Ty::Bf16x2 => 0x3F80,
        _ => return None,
    })
}

/// Instructions of the PTX ISA that rgdev does not implement: a module that uses one does not
/// load, with CUDA_ERROR_NOT_SUPPORTED and the instruction named (docs/support.md); the bulk
/// copies (`cp.async.bulk`, TMA) likewise.
const NOT_IMPLEMENTED: &[&str] = &["wgmma", "tensormap", "multimem", "stmatrix", "tcgen05", "clusterlaunchcontrol"];
