//! Instruction selection, textures and surfaces: `tex`, `tld4`, `txq`, `suq`, `suld` and
//! `sust` become TEX, TLD4, TXQ, SULD and SUST (see `hw::isa`). The texel or element
//! registers use the first vector group, the coordinates the second. A texture or surface
//! is a module reference (`.texref`, `.surfref`: its slot number in the immediate, with a
//! `.samplerref` slot + 1 in bits 47:32 in independent mode) or a bindless handle in a
//! register.

use super::{Kc, Operand, PtxError, Result, Src, VEC_GROUP, ast};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::{Op, RZ, SurfClamp, SurfMods, TXQ_SURFACE, TexDim, TexMods, TexQuery, Ty};

impl Kc<'_> {
    pub(crate) fn texture(&mut self, i: &ast::Instr) -> Result<()> {
        match i.op.as_str() {
            "tex" | "tld4" => self.tex(i),
            "txq" | "suq" => self.txq(i),
            _ => self.surface(i),
        }
    }

    fn unsupported(&self, i: &ast::Instr) -> PtxError {
        self.err(format!("`{}.{}` is not supported", i.op, i.mods.join(".")))
    }

    /// The shape among the modifiers.
    fn dim(&self, i: &ast::Instr) -> Result<TexDim> {
        for m in &i.mods {
            return Ok(match m.as_str() {
                "1d" => TexDim::D1,
                "2d" => TexDim::D2,
                "3d" => TexDim::D3,
                "a1d" => TexDim::A1,
                "a2d" => TexDim::A2,
                "cube" => TexDim::Cube,
                "acube" | "2dms" | "a2dms" => return Err(self.unsupported(i)),
                _ => continue,
            });
        }
        Err(self.err(format!("`{}` needs a geometry (1d, 2d, 3d, a1d, a2d, cube)", i.op)))
    }

    /// The texture or surface operand: a module reference's slot as an immediate, or a
    /// bindless handle in a register.
    fn handle(&mut self, h: &Operand, surface: bool, sampler: Option<&Operand>) -> Result<Src> {
        let Operand::Name(n) = h else { return Err(self.err("expected a texture or surface")) };
        if self.regs.contains_key(n) {
            if sampler.is_some() {
                return Err(self.err("a separate sampler with a bindless texture is not supported"));
            }
            let s = self.src(h, Ty::U64)?;
            return Ok(Src::Reg(self.in_reg(s)?));
        }
        let (list, what) = if surface { (&self.prog.surfaces, ".surfref") } else { (&self.prog.textures, ".texref") };
        let slot = list.iter().position(|x| x == n).ok_or_else(|| self.err(format!("`{n}` is not a {what}")))?;
        let smp = match sampler {
            None => 0,
            Some(Operand::Name(s)) => {
                let k = self.prog.samplers.iter().position(|x| x == s);
                k.ok_or_else(|| self.err(format!("`{s}` is not a .samplerref")))? as u64 + 1
            }
            Some(_) => return Err(self.err("expected a sampler")),
        };
        self.handles_used.insert((surface as u8, slot as u32));
        Ok(Src::Imm(slot as u64 | smp << 32, false))
    }

    /// Move the first `n` coordinates into the second vector group.
    fn coords(&mut self, v: &Operand, n: u32, ty: Ty) -> Result<u8> {
        let parts: Vec<&Operand> = match v {
            Operand::Vector(p) => p.iter().collect(),
            o => vec![o],
        };
        if (parts.len() as u32) < n {
            return Err(self.err(format!("expected {n} coordinates")));
        }
        let g = self.scratch_vec + VEC_GROUP as u8;
        for (k, p) in parts.into_iter().take(n as usize).enumerate() {
            let s = self.src(p, ty)?;
            self.emit(Op::Mov, Ty::U32, g + k as u8, [Some(s), None, None], 0)?;
        }
        Ok(g)
    }

    /// The handle, optional sampler and coordinates of `[tex, {..}]`.
    fn access<'o>(&self, o: &'o Operand) -> Result<(&'o Operand, Option<&'o Operand>, &'o Operand)> {
        match o {
            Operand::Tex(p) if p.len() == 2 => Ok((&p[0], None, &p[1])),
            Operand::Tex(p) if p.len() == 3 => Ok((&p[0], Some(&p[1]), &p[2])),
            _ => Err(self.err("expected `[texture, {coordinates}]`")),
        }
    }

    /// `tex.geom.v4.dtype.ctype d, [t, {c}]` (`.level`: a level of detail after it) and
    /// `tld4.comp.2d.v4.dtype.f32 d, [t, {c}]`.
    fn tex(&mut self, i: &ast::Instr) -> Result<()> {
        let tys = self.types(i);
        let (&[dty, cty], true) = (tys.as_slice(), i.has("v4")) else {
            return Err(self.err(format!("`{}` needs .v4, a texel type and a coordinate type", i.op)));
        };
        let level = i.has("level");
        let expected = if level { 3 } else { 2 };
        if !matches!(dty, Ty::F32 | Ty::S32 | Ty::U32)
            || !matches!(cty, Ty::F32 | Ty::S32)
            || i.has("grad")
            || i.has("base")
            || i.args.len() != expected
        {
            return Err(self.unsupported(i));
        }
        let dim = self.dim(i)?;
        let comp = ["r", "g", "b", "a"].iter().position(|c| i.has(c));
        let op = if i.op == "tld4" { Op::Tld4 } else { Op::Tex };
        if op == Op::Tld4 && (comp.is_none() || dim != TexDim::D2) {
            return Err(self.unsupported(i));
        }
        let (h, smp, c) = self.access(self.arg(i, 1)?)?;
        let g = self.coords(c, dim.coords(), cty)?;
        let handle = self.handle(h, false, smp)?;
        let lod = if level { Some(self.src(self.arg(i, 2)?, Ty::F32)?) } else { None };
        let m = TexMods::new().with_dim(dim).with_int_coords(cty == Ty::S32).with_lod(level);
        let m = m.with_comp(comp.unwrap_or(0) as u8);
        let m = u16::from_le_bytes(m.into_bytes());
        self.emit(op, dty, self.scratch_vec, [Some(Src::Reg(g)), Some(handle), lod], m)?;
        self.group_to_dsts(self.arg(i, 0)?, 4)
    }

    /// `txq.attr.b32 d, [t]` and `suq.attr.b32 d, [s]`.
    fn txq(&mut self, i: &ast::Instr) -> Result<()> {
        let surface = i.op == "suq";
        let q = [
            ("width", TexQuery::Width),
            ("height", TexQuery::Height),
            ("depth", TexQuery::Depth),
            ("channel_data_type", TexQuery::ChannelDataType),
            ("channel_order", TexQuery::ChannelOrder),
            ("normalized_coords", TexQuery::NormalizedCoords),
            ("filter_mode", TexQuery::FilterMode),
            ("addr_mode_0", TexQuery::AddrMode0),
            ("addr_mode_1", TexQuery::AddrMode1),
            ("addr_mode_2", TexQuery::AddrMode2),
            ("array_size", TexQuery::ArraySize),
            ("num_mipmap_levels", TexQuery::NumMipmapLevels),
            ("num_samples", TexQuery::NumSamples),
        ];
        let query = q.iter().find(|(n, _)| i.has(n)).map(|x| x.1);
        let Some(query) = query.filter(|_| !i.has("level")) else { return Err(self.unsupported(i)) };
        let d = self.dst(self.arg(i, 0)?)?;
        let handle = match self.arg(i, 1)? {
            Operand::Addr(h, 0) => self.handle(h, surface, None)?,
            _ => return Err(self.err(format!("`{}` needs `[texture]`", i.op))),
        };
        let m = query as u16 | if surface { TXQ_SURFACE } else { 0 };
        self.emit(Op::Txq, Ty::U32, d, [None, Some(handle), None], m).map(|_| ())
    }

    /// `suld.b.geom.vec.btype.clamp d, [s, {c}]` and `sust.b.geom.vec.btype.clamp [s, {c}], v`.
    fn surface(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        if !i.has("b") || !matches!(ty, Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64) {
            return Err(self.unsupported(i)); // formatted (`.p`) accesses and other types
        }
        let dim = self.dim(i)?;
        let n = self.vec_of(i);
        let clamp = if i.has("clamp") {
            SurfClamp::Clamp
        } else if i.has("zero") {
            SurfClamp::Zero
        } else {
            SurfClamp::Trap
        };
        let m = SurfMods::new().with_dim(dim).with_vec(n.trailing_zeros() as u8).with_clamp(clamp);
        let m = u16::from_le_bytes(m.into_bytes());
        let load = i.op == "suld";
        let (h, smp, c) = self.access(self.arg(i, if load { 1 } else { 0 })?)?;
        if smp.is_some() {
            return Err(self.err("surfaces take no sampler"));
        }
        let g = self.coords(c, dim.coords(), Ty::S32)?;
        if load {
            let handle = self.handle(h, true, None)?;
            self.emit(Op::Suld, ty, self.scratch_vec, [Some(Src::Reg(g)), Some(handle), None], m)?;
            return self.group_to_dsts(self.arg(i, 0)?, n);
        }
        let sv = self.vals_to_group(self.arg(i, 1)?, n, ty)?;
        let handle = self.handle(h, true, None)?;
        self.emit(Op::Sust, ty, RZ, [Some(Src::Reg(g)), Some(Src::Reg(sv)), Some(handle)], m).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use crate::compile_ptx;
    use alloc::format;
    use alloc::string::ToString;
    use alloc::vec::Vec;
    use hw::isa::*;

    const HDR: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

    fn kernel(decls: &str, body: &str) -> crate::Result<crate::Program> {
        compile_ptx(&format!(
            "{HDR}{decls}\n.entry k(.param .u64 obj)\n{{\n .reg .f32 %f<12>;\n .reg .b32 %r<12>;\n .reg .b64 %rd<4>;\n{body}\n}}\n"
        ))
    }

    #[test]
    fn texture_and_surface_instructions_compile_to_the_isa() {
        let p = kernel(
            ".global .texref t2;\n.global .texref t1;\n.global .surfref s;\n.global .samplerref smp;",
            " ld.param.u64 %rd1, [obj];\n mov.u32 %r1, %tid.x;\n cvt.rn.f32.u32 %f1, %r1;\n\
             tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [t2, {%f1, %f1}];\n\
             tex.a1d.v4.s32.s32 {%r2, %r3, %r4, _}, [t1, smp, {%r1, %r1}];\n\
             tex.level.3d.v4.f32.f32 {%f6, %f7, %f8, %f9}, [%rd1, {%f1, %f1, %f1, %f1}], 0f3f800000;\n\
             tld4.g.2d.v4.f32.f32 {%f6, %f7, %f8, %f9}, [t2, {%f1, %f1}];\n\
             txq.height.b32 %r6, [t2];\n suq.width.b32 %r7, [s];\n\
             suld.b.2d.v2.b32.clamp {%r8, %r9}, [s, {%r1, %r1}];\n\
             sust.b.1d.b64.zero [s, {%r1}], {%rd1};\n",
        )
        .unwrap();
        let k = &p.kernels[0];
        assert_eq!((k.textures, k.surfaces), (2, 1));
        assert_eq!(
            (p.textures.as_slice(), p.surfaces.as_slice(), p.samplers.as_slice()),
            (&["t2".to_string(), "t1".to_string()][..], &["s".to_string()][..], &["smp".to_string()][..])
        );
        let of = |op: Op| p.code.iter().filter(|i| i.w0.op() == op).copied().collect::<Vec<_>>();
        let tex = of(Op::Tex);
        assert_eq!(tex.len(), 3);
        // A module texture is its slot in the immediate (slot 1 with sampler 0 + 1 above it).
        assert_eq!((tex[0].w0.imm(), tex[0].imm), (Imm::B, 0));
        assert_eq!((tex[1].w0.imm(), tex[1].imm), (Imm::B, 1 | 1 << 32));
        let m = |i: &Instr| TexMods::from_bytes(i.w0.m().to_le_bytes());
        assert_eq!((m(&tex[0]).dim(), m(&tex[0]).int_coords()), (TexDim::D2, false));
        assert_eq!((m(&tex[1]).dim(), m(&tex[1]).int_coords(), tex[1].w0.ty()), (TexDim::A1, true, Ty::S32));
        // A bindless handle is a register; `.level` puts the level of detail in c.
        assert_eq!(tex[2].w0.imm(), Imm::C);
        assert!(m(&tex[2]).lod() && tex[2].w0.b() != RZ);
        assert_eq!(f32::from_bits(tex[2].imm as u32), 1.0);
        let tld4 = of(Op::Tld4);
        assert_eq!(m(&tld4[0]).comp(), 1);
        let txq = of(Op::Txq);
        assert_eq!(
            txq.iter().map(|i| i.w0.m()).collect::<Vec<_>>(),
            [TexQuery::Height as u16, TexQuery::Width as u16 | TXQ_SURFACE]
        );
        let sm = |i: &Instr| SurfMods::from_bytes(i.w0.m().to_le_bytes());
        let suld = of(Op::Suld)[0];
        assert_eq!((sm(&suld).vec(), sm(&suld).clamp(), suld.w0.ty(), suld.imm), (1, SurfClamp::Clamp, Ty::U32, 0));
        let sust = of(Op::Sust)[0];
        assert_eq!(
            (sust.w0.imm(), sm(&sust).clamp(), sust.w0.ty(), sust.w0.dst()),
            (Imm::C, SurfClamp::Zero, Ty::U64, RZ)
        );
        // Every access decodes, its coordinate and texel groups included.
        assert!(group_lengths(Op::Tex, tex[2].w0.m()) == Some((4, 3, 1)));
        // The references survive the container.
        let back = crate::Program::from_container(&p.to_container()).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn texture_errors_name_what_is_wrong() {
        let e = kernel(".global .texref t;", " tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [u, {%f1, %f1}];").unwrap_err();
        assert!(e.msg.contains("`u` is not a .texref"), "{e}");
        let e = kernel(
            ".global .texref t;",
            " tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f1, %f1}], {%f1, %f1}, {%f1, %f1};",
        )
        .unwrap_err();
        assert!(e.msg.contains("not supported"), "{e}");
        let e =
            kernel(".global .surfref s;", " suld.p.2d.v4.b32.trap {%r1, %r2, %r3, %r4}, [s, {%r1, %r1}];").unwrap_err();
        assert!(e.msg.contains("not supported"), "{e}");
        let e = compile_ptx(&format!("{HDR}.global .samplerref s = {{ filter_mode = linear }};\n")).unwrap_err();
        assert!(e.msg.contains("initializers"), "{e}");
        // PTX 1.x declares texture references with `.tex`.
        let p = compile_ptx(".version 1.4\n.target sm_13\n.tex .u32 old;\n.entry k()\n{\n .reg .f32 %f<5>;\n tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [old, {%f1}];\n exit;\n}\n").unwrap();
        assert_eq!((p.textures.as_slice(), p.kernels[0].textures), (&["old".to_string()][..], 1));
    }
}
