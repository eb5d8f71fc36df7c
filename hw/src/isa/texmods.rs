//! Texture and surface instruction modifiers (`TEX`, `TLD4`, `TXQ`, `SULD`, `SUST`).

use modular_bitfield::prelude::*;

/// Texture and surface shapes.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum TexDim {
    /// One dimension (x).
    D1 = 0,
    /// Two (x, y).
    D2,
    /// Three (x, y, z).
    D3,
    /// An array of 1D layers (layer, x).
    A1,
    /// An array of 2D layers (layer, x, y).
    A2,
    /// A cube map (x, y, z direction).
    Cube,
}

impl TexDim {
    /// Coordinate registers an access reads (the layer included).
    pub fn coords(self) -> u32 {
        match self {
            TexDim::D1 => 1,
            TexDim::D2 | TexDim::A1 => 2,
            TexDim::D3 | TexDim::A2 | TexDim::Cube => 3,
        }
    }
}

/// `TEX`/`TLD4` modifiers: shape (2:0), integer coordinates (3: s32, else f32), an
/// explicit level of detail in c (4), the component `TLD4` gathers (6:5: r, g, b, a).
#[bitfield(bits = 9)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexMods {
    /// Shape.
    pub dim: TexDim,
    /// Coordinates are s32 texel indices (else f32).
    pub int_coords: bool,
    /// Register c holds the level of detail (`tex.level`).
    pub lod: bool,
    /// The component `TLD4` gathers (0..3: r, g, b, a).
    pub comp: B2,
    #[skip]
    __: B2,
}

/// `TXQ` attributes (m), as PTX's `txq` names them.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 4]
pub enum TexQuery {
    /// Width in texels.
    Width = 0,
    /// Height.
    Height,
    /// Depth.
    Depth,
    /// The channel data type (CUDA's `cudaChannelFormatKind`-style code).
    ChannelDataType,
    /// The channel order.
    ChannelOrder,
    /// 1 when coordinates are normalized.
    NormalizedCoords,
    /// The filter mode.
    FilterMode,
    /// Address mode of x.
    AddrMode0,
    /// Address mode of y.
    AddrMode1,
    /// Address mode of z.
    AddrMode2,
    /// Layers of an array texture.
    ArraySize,
    /// Mipmap levels.
    NumMipmapLevels,
    /// Samples of a multisample texture.
    NumSamples,
}

/// `TXQ` modifier bit: the operand is a surface (`suq`), not a texture.
pub const TXQ_SURFACE: u16 = 1 << 4;

/// What an out-of-range surface access does (PTX's `.trap`, `.clamp`, `.zero`).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 2]
pub enum SurfClamp {
    /// Stop the grid (an illegal address).
    Trap = 0,
    /// Access the nearest element inside.
    Clamp,
    /// Loads read zero, stores are dropped.
    Zero,
}

/// `SULD`/`SUST` modifiers: shape (2:0), vector length log2 (4:3: 1, 2, 4), out-of-range
/// behaviour (6:5).
#[bitfield(bits = 9)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfMods {
    /// Shape.
    pub dim: TexDim,
    /// log2 of the elements accessed (0, 1, 2).
    pub vec: B2,
    /// Out-of-range behaviour.
    pub clamp: SurfClamp,
    #[skip]
    __: B2,
}
