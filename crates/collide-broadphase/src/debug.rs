use collide_math::{Aabb, Vec3};

/// One box of an algorithm's structure, with its depth so a renderer can fade deep levels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugBox {
    /// The cell, node or region.
    pub aabb: Aabb,
    /// 0 for the root or the coarsest level.
    pub depth: u32,
}

/// What an algorithm shows of its insides: octree cells, grid cells, BVH nodes, SAP intervals.
///
/// The renderer draws it as lines; nothing here knows how. Kept and cleared by the caller so that drawing it
/// every frame allocates nothing once warm.
#[derive(Clone, Debug, Default)]
pub struct DebugGeometry {
    /// Boxes drawn as wireframes.
    pub boxes: Vec<DebugBox>,
    /// Line segments (sweep intervals, split planes' edges).
    pub segments: Vec<[Vec3; 2]>,
}

impl DebugGeometry {
    /// Remove everything, keeping the allocations.
    pub fn clear(&mut self) {
        self.boxes.clear();
        self.segments.clear();
    }
}

#[cfg(test)]
mod tests;
