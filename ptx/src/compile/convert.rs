//! Conversions (`cvt`): between every integer and float type with each rounding and
//! saturation, to and from half types and pairs, `.relu`, `.satfinite`, and f32 to
//! TensorFloat-32 (`hw::isa::CvtMods`).

use super::{Kc, Result, Src, ast};
use alloc::format;
use hw::isa::{CvtMods, Op, Round, Ty};

impl Kc<'_> {
    /// `cvt{.rnd}{.sat}{.relu}{.satfinite}.dtype.atype d, a` (and a pair's `d, a, b`).
    pub(crate) fn convert(&mut self, i: &ast::Instr) -> Result<()> {
        let tf32 = i.has("tf32");
        let mut tys = self.types(i);
        if tf32 {
            // `cvt.rna.tf32.f32`: an f32 rounded to tf32, in a .b32.
            tys.insert(0, Ty::F32);
        }
        if tys.len() != 2 || tf32 && tys[1] != Ty::F32 {
            return Err(self.err("`cvt` needs a destination and a source type"));
        }
        let (relu, satfinite) = (i.has("relu"), i.has("satfinite"));
        if (relu || satfinite) && !tf32 && !tys[0].half() {
            return Err(self
                .err(format!("`cvt.{}`: `.relu` and `.satfinite` take a half or tf32 destination", i.mods.join("."))));
        }
        let round = match i
            .mods
            .iter()
            .find(|m| matches!(m.as_str(), "rn" | "rz" | "rm" | "rp" | "rni" | "rzi" | "rmi" | "rpi"))
            .map(|s| s.as_str())
        {
            Some("rn" | "rni") => Round::Rn,
            Some("rz" | "rzi") => Round::Rz,
            Some("rm" | "rmi") => Round::Rm,
            Some("rp" | "rpi") => Round::Rp,
            _ => Round::Default,
        };
        // `.rni` etc. round a float to an integral float value.
        let integral = i.mods.iter().any(|m| matches!(m.as_str(), "rni" | "rzi" | "rmi" | "rpi"));
        let m = CvtMods { round, sat: i.has("sat"), src: tys[1], integral, relu, satfinite, tf32 };
        if matches!(tys[0], Ty::F16x2 | Ty::Bf16x2) {
            return self.cvt_pair(i, tys[0], tys[1], m);
        }
        if tys.iter().any(|t| matches!(t, Ty::F16x2 | Ty::Bf16x2)) {
            return Err(self.err(format!("`cvt.{}` is not supported", i.mods.join("."))));
        }
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, tys[1])?;
        self.cvt(tys[0], d, a, m)
    }

    /// `CVT` of `a` to `ty` into `d` with modifiers `m`; the extended ones (`.relu`,
    /// `.satfinite`, tf32) ride in the immediate word, so the source is a register then.
    pub(crate) fn cvt(&mut self, ty: Ty, d: u8, a: Src, m: CvtMods) -> Result<()> {
        let ext = m.extension();
        if ext == 0 {
            return self.emit(Op::Cvt, ty, d, [Some(a), None, None], m.encode()).map(|_| ());
        }
        let a = self.in_reg(a)?;
        let at = self.emit(Op::Cvt, ty, d, [Some(Src::Reg(a)), None, None], m.encode())?;
        self.prog.code[at as usize].imm = ext;
        Ok(())
    }
}
