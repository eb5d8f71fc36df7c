//! Warp matrix operations (`wmma`, sm_70 and sm_80): `wmma.load` and `wmma.store` become
//! each lane's loads and stores of its fragment (`hw::isa::mma` gives the layout), and
//! `wmma.mma` stages A, B and C into the tensor core ([`Op::Mma`]), multiplies, and reads D
//! back. Shapes: m16n16k16 (f16, bf16, s8, u8), m16n16k8 (tf32), m8n8k4 (f64); others,
//! sub-byte and single-bit types are named in an error.

use super::{Kc, Operand, Result, Src, ast};
use alloc::format;
use alloc::vec::Vec;
use hw::isa::mma::{self as mma, Config, Elem, Frag, Matrix, Shape};
use hw::isa::{Instr, MulMode, Op, RZ, Space, Sreg, Ty};

impl Kc<'_> {
    /// `wmma.load.{a,b,c}`, `wmma.store.d`, `wmma.mma`.
    pub(crate) fn wmma(&mut self, i: &ast::Instr) -> Result<()> {
        let unsupported = |k: &Self| k.err(format!("`wmma.{}` is not supported", i.mods.join(".")));
        let shape = i.mods.iter().find_map(|m| Shape::parse(m)).ok_or_else(|| unsupported(self))?;
        let types: Vec<Elem> = i.mods.iter().filter_map(|m| Elem::parse(m)).collect();
        if i.has("load") || i.has("store") {
            let matrix = match () {
                _ if i.has("a") => Matrix::A,
                _ if i.has("b") => Matrix::B,
                _ if i.has("c") || i.has("d") => Matrix::C,
                _ => return Err(unsupported(self)),
            };
            let col = i.has("col");
            if !col && !i.has("row") {
                return Err(self.err("`wmma.load`/`wmma.store` needs a layout (`.row` or `.col`)"));
            }
            let elem = *types.last().ok_or_else(|| unsupported(self))?;
            let frag = Frag::of(matrix, shape, elem, col).ok_or_else(|| unsupported(self))?;
            // C and D are held row by row: a column-major one is read element by element.
            let strided = matrix == Matrix::C && col;
            let (addr_at, regs_at) = if i.has("load") { (1, 0) } else { (0, 1) };
            self.fragment_access(i, frag, strided, addr_at, regs_at, i.has("load"))
        } else if i.has("mma") {
            self.wmma_mma(i, shape, &types)
        } else {
            Err(unsupported(self))
        }
    }

    /// The registers a fragment operand names.
    fn fragment(&mut self, o: &Operand, n: u32, dst: bool) -> Result<Vec<u8>> {
        let Operand::Vector(v) = o else { return Err(self.err("a `wmma` fragment is a vector `{...}` of registers")) };
        if v.len() as u32 != n {
            return Err(self.err(format!("this `wmma` fragment has {n} registers, not {}", v.len())));
        }
        v.iter().map(|o| if dst { self.dst(o) } else { self.src(o, Ty::U32).and_then(|s| self.in_reg(s)) }).collect()
    }

    /// Each lane's loads (or stores) of its elements of `frag` at the address operand
    /// `addr_at` with the leading dimension (elements) the third operand gives (default: the
    /// fragment's columns).
    fn fragment_access(
        &mut self,
        i: &ast::Instr,
        frag: Frag,
        strided: bool,
        addr_at: usize,
        regs_at: usize,
        load: bool,
    ) -> Result<()> {
        let (space, bank, base, addr, reloc) = self.address(i, self.arg(i, addr_at)?)?;
        if matches!(space, Space::Const | Space::ConstBank) && !load {
            return Err(self.err("`wmma.store` to the constant or parameter space"));
        }
        let regs = self.fragment(self.arg(i, regs_at)?, frag.regs, load)?;
        let ldm = match i.args.get(2) {
            Some(o) => self.src(o, Ty::U32)?,
            None => Src::Imm(frag.cols as u64, false),
        };
        let imm = |v: u64| Some(Src::Imm(v, false));
        let bytes = frag.elem.bytes() as u64;
        // This lane's first element: row (in memory orientation) and column.
        let lane = self.scratch()?;
        let mut s = Instr::new(Op::S2r, Ty::U32);
        s.w0.set_dst(lane);
        s.imm = Sreg::LaneId as u64;
        self.push(s);
        let per_row = frag.cols / frag.per_lane;
        let (row, col) = (self.scratch()?, self.scratch()?);
        self.emit(Op::Shr, Ty::U32, row, [Some(Src::Reg(lane)), imm(per_row.trailing_zeros() as u64), None], 0)?;
        self.emit(Op::And, Ty::U32, col, [Some(Src::Reg(lane)), imm(per_row as u64 - 1), None], 0)?;
        self.emit(Op::Mul, Ty::U32, col, [Some(Src::Reg(col)), imm(frag.per_lane as u64), None], 0)?;
        // Element offset: row * ldm + col, or for a column-major C/D col * ldm + row.
        let (major, minor) = if strided { (col, row) } else { (row, col) };
        let off = self.scratch()?;
        self.emit(Op::Mad, Ty::U32, off, [Some(Src::Reg(major)), Some(ldm), Some(Src::Reg(minor))], 0)?;
        let at = self.scratch()?;
        self.emit(Op::Mul, Ty::U32, at, [Some(Src::Reg(off)), imm(bytes), None], MulMode::Wide as u16)?;
        self.emit(Op::Add, Ty::U64, at, [Some(Src::Reg(at)), Some(Src::Reg(base)), None], 0)?;
        let place = (space, bank, at, addr, reloc);
        let op = if load { Op::Ld } else { Op::St };
        let own = frag.own_regs() as usize;
        if !strided {
            let (ty, step) = if bytes == 8 { (Ty::U64, 8) } else { (Ty::U32, 4) };
            for (k, &r) in regs.iter().take(own).enumerate() {
                self.mem_access(op, ty, place, k as u64 * step, r)?;
            }
        } else {
            // Element j is ldm elements after element j - 1.
            let step = self.scratch()?;
            self.emit(Op::Mul, Ty::U32, step, [Some(ldm), imm(bytes), None], MulMode::Wide as u16)?;
            let t = self.scratch()?;
            for j in 0..frag.per_lane as usize {
                if j > 0 {
                    self.emit(Op::Add, Ty::U64, at, [Some(Src::Reg(at)), Some(Src::Reg(step)), None], 0)?;
                }
                match bytes {
                    2 => {
                        let (r, high) = (regs[j / 2], j % 2 == 1);
                        if load {
                            self.mem_access(Op::Ld, Ty::U16, place, 0, t)?;
                            if high {
                                self.emit(Op::Shl, Ty::U32, t, [Some(Src::Reg(t)), imm(16), None], 0)?;
                                self.emit(Op::Or, Ty::U32, r, [Some(Src::Reg(r)), Some(Src::Reg(t)), None], 0)?;
                            } else {
                                self.emit(Op::Mov, Ty::U32, r, [Some(Src::Reg(t)), None, None], 0)?;
                            }
                        } else {
                            let v = if high {
                                self.emit(Op::Shr, Ty::U32, t, [Some(Src::Reg(r)), imm(16), None], 0)?;
                                t
                            } else {
                                r
                            };
                            self.mem_access(Op::St, Ty::U16, place, 0, v)?;
                        }
                    }
                    8 => self.mem_access(op, Ty::U64, place, 0, regs[j])?,
                    _ => self.mem_access(op, Ty::U32, place, 0, regs[j])?,
                }
            }
        }
        // An f16 A or B fragment's second half repeats the first.
        if load {
            for k in own..regs.len() {
                self.emit(Op::Mov, Ty::U32, regs[k], [Some(Src::Reg(regs[k - own])), None, None], 0)?;
            }
        }
        Ok(())
    }

    /// `wmma.mma.sync.aligned.{row,col}.{row,col}.shape.dtype{.atype.btype}.ctype{.satfinite} d, a, b, c`.
    fn wmma_mma(&mut self, i: &ast::Instr, shape: Shape, types: &[Elem]) -> Result<()> {
        let layouts: Vec<bool> = i.mods.iter().filter(|m| *m == "row" || *m == "col").map(|m| m == "col").collect();
        let (a_col, b_col) = match layouts[..] {
            [a, b] => (a, b),
            _ => return Err(self.err("`wmma.mma` needs the layouts of A and B (`.row`/`.col` twice)")),
        };
        let (d, ab, c) = match types {
            [d, c] => (*d, Elem::F16, *c),
            [d, a, b, c] if a == b => (*d, *a, *c),
            _ => return Err(self.err(format!("`wmma.{}` is not supported", i.mods.join(".")))),
        };
        let cfg = Config { shape, ab, c, d, a_col, b_col, satfinite: i.has("satfinite"), sync: false };
        self.tensor_op(i, cfg)
    }

    /// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`: the
    /// register-level tensor operation, its fragments laid out as the PTX ISA specifies
    /// (`hw::isa::mma::Frag::of_sync`). Shapes m16n8k16 (f16, bf16, s8, u8), m16n8k8 (f16,
    /// bf16, tf32), m16n8k32 (s8, u8), m8n8k4 (f64).
    pub(crate) fn mma_sync(&mut self, i: &ast::Instr) -> Result<()> {
        let unsupported = |k: &Self| k.err(format!("`mma.{}` is not supported", i.mods.join(".")));
        if !i.has("sync") || !i.has("row") || !i.has("col") {
            return Err(unsupported(self));
        }
        let shape = i.mods.iter().find_map(|m| Shape::parse(m)).ok_or_else(|| unsupported(self))?;
        let types: Vec<Elem> = i.mods.iter().filter_map(|m| Elem::parse(m)).collect();
        let (d, ab, c) = match types[..] {
            [d, a, b, c] if a == b => (d, a, c),
            _ => return Err(unsupported(self)),
        };
        let cfg = Config { shape, ab, c, d, a_col: false, b_col: true, satfinite: i.has("satfinite"), sync: true };
        self.tensor_op(i, cfg)
    }

    /// Stage operands 1..3 of `i` (A, B, C) into the tensor core, multiply as `cfg` says,
    /// and read D into operand 0.
    fn tensor_op(&mut self, i: &ast::Instr, cfg: Config) -> Result<()> {
        let what = if cfg.sync { "mma" } else { "wmma" };
        let fr = |m: Matrix, e: Elem| cfg.frag(m, e);
        let (Some(fa), Some(fb), Some(fc), Some(fd), Some(_)) = (
            fr(Matrix::A, cfg.ab),
            fr(Matrix::B, cfg.ab),
            fr(Matrix::C, cfg.c),
            fr(Matrix::C, cfg.d),
            Config::decode(cfg.encode()).filter(|c| *c == cfg),
        ) else {
            return Err(self.err(format!("`{what}.{}` is not supported", i.mods.join("."))));
        };
        let ty = if cfg.ab == Elem::F64 { Ty::U64 } else { Ty::U32 };
        for (stage, frag, at) in [(mma::STAGE_A, fa, 1), (mma::STAGE_B, fb, 2), (mma::STAGE_C, fc, 3)] {
            let regs = self.fragment(self.arg(i, at)?, frag.regs, false)?;
            for (k, &r) in regs.iter().take(frag.own_regs() as usize).enumerate() {
                self.emit(Op::Mma, ty, RZ, [Some(Src::Reg(r)), None, None], stage | k as u16)?;
            }
        }
        let done = self.scratch()?;
        let mut run = Instr::new(Op::Mma, Ty::U32);
        run.w0.set_dst(done);
        run.w0.set_m(mma::RUN);
        run.imm = cfg.encode();
        self.push(run);
        let dregs = self.fragment(self.arg(i, 0)?, fd.regs, true)?;
        for (k, &r) in dregs.iter().enumerate() {
            self.emit(Op::Mma, ty, r, [None, Some(Src::Reg(done)), None], mma::READ_D | k as u16)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn wmma_envreg_and_prefetch() {
        let hdr = ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n .reg .b32 %r<40>;\n .reg .f32 %f<20>;\n ld.param.u64 %rd1, [p];\n";
        let a = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}";
        let b = "{%r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18}";
        let c = "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}";
        let d = "{%f11, %f12, %f13, %f14, %f15, %f16, %f17, %f18}";
        let ok = format!(
            "{hdr} wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {a}, [%rd1], 16;\n wmma.load.b.sync.aligned.col.m16n16k16.f16 {b}, [%rd1], %r30;\n wmma.load.c.sync.aligned.col.m16n16k16.f32 {c}, [%rd1], 16;\n wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {d}, {a}, {b}, {c};\n wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd1], {d}, 16;\n mov.u32 %r31, %envreg1;\n st.global.u32 [%rd1], %r31;\n prefetch.global.L2 [%rd1];\n ret;\n}}\n"
        );
        let p = compile_ptx(&ok).unwrap();
        let mma = |m: u16| p.code.iter().filter(|i| i.w0.op() == Op::Mma && i.w0.m() & !7 == m).count();
        // A and B stage their 4 own registers (the f16 fragments' other 4 repeat them), C 8.
        assert_eq!((mma(hw::isa::mma::STAGE_A), mma(hw::isa::mma::STAGE_B), mma(hw::isa::mma::STAGE_C)), (4, 4, 8));
        assert_eq!((mma(hw::isa::mma::RUN), mma(hw::isa::mma::READ_D)), (1, 8));
        // %envreg1 is a launch constant operand.
        assert!(p.code.iter().any(|i| i.imm == LAUNCH_ENVREG + 4));
        let e =
            compile_ptx(&format!("{hdr} wmma.load.a.sync.aligned.row.m8n8k32.s4 {{%r1}}, [%rd1], 32;\n ret;\n}}\n"))
                .unwrap_err();
        assert!(e.msg.contains("`wmma.load.a.sync.aligned.row.m8n8k32.s4` is not supported"), "{e}");
        let e = compile_ptx(&format!(
            "{hdr} wmma.load.a.sync.aligned.row.m16n16k16.f16 {{%r1, %r2}}, [%rd1], 16;\n ret;\n}}\n"
        ))
        .unwrap_err();
        assert!(e.msg.contains("8 registers"), "{e}");
    }
}
