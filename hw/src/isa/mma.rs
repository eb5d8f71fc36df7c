//! The tensor-core instruction [`Op::Mma`](super::Op::Mma) and the fragment layout of warp
//! matrix operations (`wmma`), shared by the compiler (which loads and stores fragments
//! with ordinary per-lane accesses) and the SM (which gathers them to multiply).
//!
//! A warp's matrix operation is staged through the SM's per-warp operand buffer: `m`
//! selects [`STAGE_A`], [`STAGE_B`] or [`STAGE_C`] (each lane's register `a` into slot
//! `m & 7` of that operand), [`RUN`] (the product `D = A * B + C` of the staged operands,
//! as the configuration word in the immediate describes it: [`Config`]; `dst` is written
//! with 0 when it is done, so the reads that follow wait for it), or [`READ_D`] (`dst` =
//! each lane's slot `m & 7` of D; operand b is the register [`RUN`] wrote).
//!
//! Fragment layout (PTX leaves it to the implementation; rgdev's is this): a fragment of an
//! `R x C` matrix, seen in the orientation its memory layout gives (A row-major is `M x K`,
//! A column-major `K x M`; B row-major `K x N`, column-major `N x K`; C and D always
//! `M x N`, row by row, whatever layout they are loaded or stored with), gives each lane
//! `e = R * C / 32` consecutive elements of one row: lane `l` holds row `l / (C / e)`,
//! columns `(l % (C / e)) * e ..` (elements packed into 32-bit registers from the low bits,
//! a 64-bit element per register). PTX gives an `m16n16k16` `.f16` A or B fragment 8
//! registers for its 8 elements' 4: registers 4..7 repeat 0..3.
//!
//! `mma.sync` (PTX's register-level form, [`Config::sync`]) has the fragment layouts the
//! PTX ISA specifies instead ([`Frag::of_sync`]): with `g = lane >> 2` and `t = lane % 4`,
//! element `j` of a lane's fragment sits at the (row, column) [`Frag::coord`] gives, A
//! `M x K` row-major, B `K x N` column-major, C and D `M x N`; elements are packed into the
//! registers from the low bits as for `wmma`.

/// `m`: stage lane register `a` as slot `m & 7` of operand A.
pub const STAGE_A: u16 = 0 << 3;
/// `m`: stage operand B.
pub const STAGE_B: u16 = 1 << 3;
/// `m`: stage operand C.
pub const STAGE_C: u16 = 2 << 3;
/// `m`: multiply the staged operands (the immediate is a [`Config`]).
pub const RUN: u16 = 3 << 3;
/// `m`: read slot `m & 7` of D.
pub const READ_D: u16 = 4 << 3;

/// Matrix shapes (M, N, K).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Shape {
    /// `m16n16k16`: f16, bf16, s8, u8.
    M16N16K16 = 0,
    /// `m16n16k8`: tf32.
    M16N16K8 = 1,
    /// `m8n8k4`: f64.
    M8N8K4 = 2,
    /// `m32n8k16`: f16, bf16, s8, u8.
    M32N8K16 = 3,
    /// `m8n32k16`: f16, bf16, s8, u8.
    M8N32K16 = 4,
    /// `m16n8k16` (`mma.sync`): f16, bf16, s8, u8.
    M16N8K16 = 5,
    /// `m16n8k8` (`mma.sync`): f16, bf16, tf32.
    M16N8K8 = 6,
    /// `m16n8k32` (`mma.sync`): s8, u8.
    M16N8K32 = 7,
}

impl Shape {
    /// (M, N, K).
    pub const fn mnk(self) -> (u32, u32, u32) {
        match self {
            Shape::M16N16K16 => (16, 16, 16),
            Shape::M16N16K8 => (16, 16, 8),
            Shape::M8N8K4 => (8, 8, 4),
            Shape::M32N8K16 => (32, 8, 16),
            Shape::M8N32K16 => (8, 32, 16),
            Shape::M16N8K16 => (16, 8, 16),
            Shape::M16N8K8 => (16, 8, 8),
            Shape::M16N8K32 => (16, 8, 32),
        }
    }
    /// PTX's name of it.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "m16n16k16" => Shape::M16N16K16,
            "m16n16k8" => Shape::M16N16K8,
            "m8n8k4" => Shape::M8N8K4,
            "m32n8k16" => Shape::M32N8K16,
            "m8n32k16" => Shape::M8N32K16,
            "m16n8k16" => Shape::M16N8K16,
            "m16n8k8" => Shape::M16N8K8,
            "m16n8k32" => Shape::M16N8K32,
            _ => return None,
        })
    }
}

/// Element types of fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Elem {
    /// binary16.
    F16 = 0,
    /// bfloat16.
    Bf16 = 1,
    /// TensorFloat-32 (an f32 whose 13 low mantissa bits the multiply ignores).
    Tf32 = 2,
    /// Signed 8-bit.
    S8 = 3,
    /// Unsigned 8-bit.
    U8 = 4,
    /// binary32.
    F32 = 5,
    /// Signed 32-bit.
    S32 = 6,
    /// binary64.
    F64 = 7,
}

impl Elem {
    /// Bytes of one element.
    pub const fn bytes(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 2,
            Elem::S8 | Elem::U8 => 1,
            Elem::F64 => 8,
            _ => 4,
        }
    }
    /// PTX's name of it.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "f16" => Elem::F16,
            "bf16" => Elem::Bf16,
            "tf32" => Elem::Tf32,
            "s8" => Elem::S8,
            "u8" => Elem::U8,
            "f32" => Elem::F32,
            "s32" => Elem::S32,
            "f64" => Elem::F64,
            _ => return None,
        })
    }
    fn from_bits(b: u64) -> Option<Self> {
        [Elem::F16, Elem::Bf16, Elem::Tf32, Elem::S8, Elem::U8, Elem::F32, Elem::S32, Elem::F64]
            .get(b as usize)
            .copied()
    }
}

/// Which operand a fragment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matrix {
    /// A (M x K).
    A,
    /// B (K x N).
    B,
    /// C or D (M x N).
    C,
}

/// The geometry of one fragment: its rows and columns in memory orientation, the elements
/// each lane holds, and the registers PTX gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frag {
    /// Rows (in memory orientation).
    pub rows: u32,
    /// Columns (the contiguous dimension).
    pub cols: u32,
    /// Elements per lane.
    pub per_lane: u32,
    /// Element type.
    pub elem: Elem,
    /// Registers PTX's fragment has (at least the elements' own).
    pub regs: u32,
    /// The operand, its shape, and whether the layout is `mma.sync`'s ([`Frag::coord`]).
    pub matrix: Matrix,
    /// The operation's shape.
    pub shape: Shape,
    /// `mma.sync`'s layout.
    pub sync: bool,
}

impl Frag {
    /// The fragment of `matrix` for `shape` and `elem`; `col_major` is its memory layout
    /// (ignored for C and D, which are always held row by row). None for a combination
    /// `wmma` does not have.
    pub fn of(matrix: Matrix, shape: Shape, elem: Elem, col_major: bool) -> Option<Frag> {
        let (m, n, k) = shape.mnk();
        let ok = match (shape, matrix) {
            (Shape::M16N8K16 | Shape::M16N8K8 | Shape::M16N8K32, _) => false,
            (Shape::M16N16K16 | Shape::M32N8K16 | Shape::M8N32K16, Matrix::A | Matrix::B) => {
                matches!(elem, Elem::F16 | Elem::Bf16 | Elem::S8 | Elem::U8)
            }
            (Shape::M16N16K16 | Shape::M32N8K16 | Shape::M8N32K16, Matrix::C) => {
                matches!(elem, Elem::F16 | Elem::F32 | Elem::S32)
            }
            (Shape::M16N16K8, Matrix::A | Matrix::B) => elem == Elem::Tf32,
            (Shape::M16N16K8, Matrix::C) => elem == Elem::F32,
            (Shape::M8N8K4, _) => elem == Elem::F64,
        };
        if !ok {
            return None;
        }
        let (rows, cols) = match (matrix, col_major) {
            (Matrix::A, false) => (m, k),
            (Matrix::A, true) => (k, m),
            (Matrix::B, false) => (k, n),
            (Matrix::B, true) => (n, k),
            (Matrix::C, _) => (m, n),
        };
        let per_lane = rows * cols / 32;
        let own = if elem == Elem::F64 { per_lane } else { (per_lane * elem.bytes()).div_ceil(4) };
        // PTX gives every .f16 A or B fragment 8 registers.
        let regs = if elem == Elem::F16 && matrix != Matrix::C { 8 } else { own };
        Some(Frag { rows, cols, per_lane, elem, regs, matrix, shape, sync: false })
    }

    /// The `mma.sync` fragment of `matrix` for `shape` and `elem` (A row-major, B
    /// column-major); None for a combination rgdev's `mma.sync` does not have.
    pub fn of_sync(matrix: Matrix, shape: Shape, elem: Elem) -> Option<Frag> {
        let ab = |e: Elem| match shape {
            Shape::M16N8K16 => matches!(e, Elem::F16 | Elem::Bf16 | Elem::S8 | Elem::U8),
            Shape::M16N8K8 => matches!(e, Elem::F16 | Elem::Bf16 | Elem::Tf32),
            Shape::M16N8K32 => matches!(e, Elem::S8 | Elem::U8),
            Shape::M8N8K4 => e == Elem::F64,
            _ => false,
        };
        let ok = match matrix {
            Matrix::A | Matrix::B => ab(elem),
            Matrix::C if shape == Shape::M8N8K4 => elem == Elem::F64,
            Matrix::C => matches!(elem, Elem::F16 | Elem::F32 | Elem::S32),
        };
        if !ok {
            return None;
        }
        let (m, n, k) = shape.mnk();
        let (rows, cols) = match matrix {
            Matrix::A => (m, k),
            Matrix::B => (k, n),
            Matrix::C => (m, n),
        };
        let per_lane = rows * cols / 32;
        let regs = if elem == Elem::F64 { per_lane } else { (per_lane * elem.bytes()).div_ceil(4) };
        Some(Frag { rows, cols, per_lane, elem, regs, matrix, shape, sync: true })
    }

    /// (row, column) of element `j` of lane `lane`: in memory orientation for `wmma` (see
    /// [`Frag::place`]), in the logical one (A `M x K`, B `K x N`, C `M x N`) for
    /// `mma.sync`, as the PTX ISA lays its fragments out.
    pub fn coord(&self, lane: u32, j: u32) -> (u32, u32) {
        if !self.sync {
            let (r, c0) = self.place(lane);
            return (r, c0 + j);
        }
        let (g, t) = (lane >> 2, lane % 4);
        let bytes = self.elem.bytes();
        match (self.matrix, self.shape) {
            // Accumulators: two per row pair, the second row 8 below (f64: one row).
            (Matrix::C, Shape::M8N8K4) => (g, 2 * t + j),
            (Matrix::C, _) => (g + 8 * (j >> 1), 2 * t + (j & 1)),
            (Matrix::A, Shape::M8N8K4) => (g, t),
            (Matrix::B, Shape::M8N8K4) => (t, g),
            // tf32: one element per register.
            (Matrix::A, _) if self.elem == Elem::Tf32 => (g + 8 * (j & 1), t + 4 * (j >> 1)),
            (Matrix::B, _) if self.elem == Elem::Tf32 => (t + 4 * j, g),
            // 16-bit: pairs of columns (A) or rows (B), then 8 on.
            (Matrix::A, _) if bytes == 2 => (g + 8 * ((j >> 1) & 1), 2 * t + (j & 1) + 8 * (j >> 2)),
            (Matrix::B, _) if bytes == 2 => (2 * t + (j & 1) + 8 * (j >> 1), g),
            // 8-bit: runs of four columns (A) or rows (B), then 16 on.
            (Matrix::A, _) => (g + 8 * ((j >> 2) & 1), 4 * t + (j & 3) + 16 * (j >> 3)),
            (Matrix::B, _) => (4 * t + (j & 3) + 16 * (j >> 2), g),
        }
    }
    /// Registers holding the lane's own elements (the rest repeat them).
    pub fn own_regs(&self) -> u32 {
        if self.elem == Elem::F64 { self.per_lane } else { (self.per_lane * self.elem.bytes()).div_ceil(4) }
    }
    /// (row, first column) of lane `lane`'s elements, in memory orientation.
    pub fn place(&self, lane: u32) -> (u32, u32) {
        let per_row = self.cols / self.per_lane;
        (lane / per_row, (lane % per_row) * self.per_lane)
    }
}

/// A multiply's configuration (the immediate of [`RUN`]): shape bits 2:0, A/B element type
/// 6:4, C type 10:8, D type 14:12, A column-major bit 16, B column-major bit 17, `.satfinite`
/// bit 18, `mma.sync` bit 19.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Shape.
    pub shape: Shape,
    /// A's and B's element type.
    pub ab: Elem,
    /// C's element type.
    pub c: Elem,
    /// D's element type.
    pub d: Elem,
    /// A is held column-major (`.col`).
    pub a_col: bool,
    /// B is held column-major.
    pub b_col: bool,
    /// `.satfinite`: float results clamped to the finite range, integers saturated.
    pub satfinite: bool,
    /// `mma.sync`: the fragments are laid out as the PTX ISA specifies ([`Frag::of_sync`]).
    pub sync: bool,
}

impl Config {
    /// The immediate word.
    pub fn encode(&self) -> u64 {
        self.shape as u64
            | (self.ab as u64) << 4
            | (self.c as u64) << 8
            | (self.d as u64) << 12
            | (self.a_col as u64) << 16
            | (self.b_col as u64) << 17
            | (self.satfinite as u64) << 18
            | (self.sync as u64) << 19
    }
    /// The fragment of operand `matrix` (element type `elem`) in this configuration's
    /// layout.
    pub fn frag(&self, matrix: Matrix, elem: Elem) -> Option<Frag> {
        let col = match matrix {
            Matrix::A => self.a_col,
            Matrix::B => self.b_col,
            Matrix::C => false,
        };
        if self.sync { Frag::of_sync(matrix, self.shape, elem) } else { Frag::of(matrix, self.shape, elem, col) }
    }
    /// From an immediate word; None for a combination `wmma` does not have.
    pub fn decode(w: u64) -> Option<Self> {
        let shape = [
            Shape::M16N16K16,
            Shape::M16N16K8,
            Shape::M8N8K4,
            Shape::M32N8K16,
            Shape::M8N32K16,
            Shape::M16N8K16,
            Shape::M16N8K8,
            Shape::M16N8K32,
        ]
        .get((w & 7) as usize)
        .copied()?;
        let c = Config {
            shape,
            ab: Elem::from_bits(w >> 4 & 7)?,
            c: Elem::from_bits(w >> 8 & 7)?,
            d: Elem::from_bits(w >> 12 & 7)?,
            a_col: w >> 16 & 1 == 1,
            b_col: w >> 17 & 1 == 1,
            satfinite: w >> 18 & 1 == 1,
            sync: w >> 19 & 1 == 1,
        };
        // mma.sync: A row-major and B column-major only.
        if c.sync && (c.a_col || !c.b_col) || w >> 20 != 0 {
            return None;
        }
        let accum_ok = c.frag(Matrix::C, c.c).is_some() && c.frag(Matrix::C, c.d).is_some();
        let int = matches!(c.ab, Elem::S8 | Elem::U8);
        (c.frag(Matrix::A, c.ab).is_some() && accum_ok && int == (c.c == Elem::S32) && int == (c.d == Elem::S32))
            .then_some(c)
    }
    /// Multiply-adds of one warp's operation.
    pub fn fmas(&self) -> u32 {
        let (m, n, k) = self.shape.mnk();
        m * n * k
    }
    /// The operation's cost in half-precision multiply-adds, what the tensor core's issue
    /// interval scales with: the A100's rates relative to f16 (dense): bf16 1, tf32 1/2,
    /// 8-bit integers 2, f64 1/16.
    pub fn f16_fmas(&self) -> u32 {
        match self.ab {
            Elem::Tf32 => 2 * self.fmas(),
            Elem::S8 | Elem::U8 => self.fmas() / 2,
            Elem::F64 => 16 * self.fmas(),
            _ => self.fmas(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_cover_their_matrix_once() {
        for (shape, elem, c) in [
            (Shape::M16N16K16, Elem::F16, Elem::F32),
            (Shape::M16N16K16, Elem::S8, Elem::S32),
            (Shape::M16N16K8, Elem::Tf32, Elem::F32),
            (Shape::M8N8K4, Elem::F64, Elem::F64),
            (Shape::M32N8K16, Elem::F16, Elem::F16),
            (Shape::M8N32K16, Elem::Bf16, Elem::F32),
        ] {
            for (matrix, e) in [(Matrix::A, elem), (Matrix::B, elem), (Matrix::C, c)] {
                for col in [false, true] {
                    let f = Frag::of(matrix, shape, e, col).unwrap();
                    let mut seen = [0u32; 512];
                    for lane in 0..32 {
                        let (r, c0) = f.place(lane);
                        for j in 0..f.per_lane {
                            seen[(r * f.cols + c0 + j) as usize] += 1;
                        }
                    }
                    assert!(seen[..(f.rows * f.cols) as usize].iter().all(|&n| n == 1), "{shape:?} {matrix:?} {e:?}");
                }
            }
        }
        assert_eq!(Frag::of(Matrix::A, Shape::M16N16K16, Elem::F16, false).unwrap().regs, 8);
        assert_eq!(Frag::of(Matrix::C, Shape::M16N16K16, Elem::F16, false).unwrap().regs, 4);
        assert_eq!(Frag::of(Matrix::A, Shape::M16N16K16, Elem::S8, true).unwrap().regs, 2);
        assert_eq!(Frag::of(Matrix::C, Shape::M8N8K4, Elem::F64, false).unwrap().regs, 2);
        assert!(Frag::of(Matrix::A, Shape::M16N16K8, Elem::F16, false).is_none());
        let c = Config {
            shape: Shape::M16N16K8,
            ab: Elem::Tf32,
            c: Elem::F32,
            d: Elem::F32,
            a_col: true,
            b_col: false,
            satfinite: false,
            sync: false,
        };
        assert_eq!(Config::decode(c.encode()), Some(c));
        assert_eq!(Config::decode(Config { c: Elem::S32, ..c }.encode()), None);
        // mma.sync fragments cover their matrices once too, registers as PTX counts them.
        for (shape, elem, acc, regs) in [
            (Shape::M16N8K16, Elem::F16, Elem::F32, [4, 2, 4]),
            (Shape::M16N8K16, Elem::Bf16, Elem::F16, [4, 2, 2]),
            (Shape::M16N8K16, Elem::S8, Elem::S32, [2, 1, 4]),
            (Shape::M16N8K8, Elem::F16, Elem::F32, [2, 1, 4]),
            (Shape::M16N8K8, Elem::Tf32, Elem::F32, [4, 2, 4]),
            (Shape::M16N8K32, Elem::U8, Elem::S32, [4, 2, 4]),
            (Shape::M8N8K4, Elem::F64, Elem::F64, [1, 1, 2]),
        ] {
            for (k, (matrix, e)) in [(Matrix::A, elem), (Matrix::B, elem), (Matrix::C, acc)].into_iter().enumerate() {
                let f = Frag::of_sync(matrix, shape, e).unwrap();
                assert_eq!(f.regs, regs[k], "{shape:?} {matrix:?} {e:?}");
                let mut seen = [0u32; 512];
                for lane in 0..32 {
                    for j in 0..f.per_lane {
                        let (r, col) = f.coord(lane, j);
                        assert!(r < f.rows && col < f.cols, "{shape:?} {matrix:?} lane {lane} {j}");
                        seen[(r * f.cols + col) as usize] += 1;
                    }
                }
                assert!(seen[..(f.rows * f.cols) as usize].iter().all(|&n| n == 1), "{shape:?} {matrix:?} {e:?}");
            }
        }
        // m16n8k16 .f16 A, as the PTX ISA draws it: a0..a7 of lane 5 (g 1, t 1).
        let a = Frag::of_sync(Matrix::A, Shape::M16N8K16, Elem::F16).unwrap();
        let at: [(u32, u32); 8] = core::array::from_fn(|j| a.coord(5, j as u32));
        assert_eq!(at, [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]);
        let s = Config {
            shape: Shape::M16N8K16,
            ab: Elem::F16,
            c: Elem::F32,
            d: Elem::F32,
            a_col: false,
            b_col: true,
            sync: true,
            ..c
        };
        assert_eq!(Config::decode(s.encode()), Some(s));
        assert_eq!(Config::decode(Config { b_col: false, ..s }.encode()), None);
        assert_eq!(Config::decode(Config { sync: false, ..s }.encode()), None);
    }
}
