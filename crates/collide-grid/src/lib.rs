//! Grid broadphases: a hashed uniform grid (`grid`) and a hierarchical grid (`hgrid`), built every frame by
//! sorting, searched by sweeps, in parallel.
//!
//! (The design essay is completed below in later sections.)

// The layers, bottom up; imports point down only. The data: the frame's plan (cells, levels, slabs), one slab's
// buckets.
mod plan;
mod slab;
// Kernels on the plan: sampling the frame into a plan.
mod planner;
// The build (the body pass, the counting sorts into rows and columns) and the search (a row's buckets), then one
// slab's frame of both.
mod build;
mod pass;
mod scatter;
mod search;
// The invariants' check and the debug view, then the public type.
mod debug;
mod grid;
mod validate;

#[cfg(test)]
mod tests;

pub use grid::{COLUMNS_PER_ENTRY, Grid, GridConfig, MAX_SLABS, SLAB_CELLS, SLABS_PER_THREAD};
pub use plan::{MAX_LEVELS, MAX_TORUS_BITS};
pub use planner::{Kind, SAMPLE};

use collide_broadphase::ParamSpec;

/// `cell_factor`: cells are this many times the reference box size.
pub const CELL_FACTOR: ParamSpec = ParamSpec::number(
    "cell_factor",
    "cells are this many times the median box (grid) or the small boxes (hgrid's finest level)",
    4.0,
    0.25,
    64.0,
);

/// `cell_size`: a fixed cell edge, or 0 to size cells from the boxes.
pub const CELL_SIZE: ParamSpec = ParamSpec::number(
    "cell_size",
    "a fixed cell edge (hgrid: the finest level's); 0 sizes cells from the boxes every frame",
    0.0,
    0.0,
    1.0e30,
);

/// The parameters of `grid` and `hgrid`.
pub const PARAMS: &[ParamSpec] = &[CELL_FACTOR, CELL_SIZE];
