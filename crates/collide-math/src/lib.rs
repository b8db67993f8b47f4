//! Bounding volumes for collide: [`Aabb`], [`Sphere`], [`Obb`] and [`Ray`], built on glam.
//!
//! Every broadphase in the workspace decides overlap with the same function, [`Aabb::overlaps`], so that
//! switching algorithms can change only the time taken, never the pairs. Boxes are **closed** intervals:
//! two boxes that touch exactly on a face, an edge or a corner overlap. That choice makes the 3×3×3 grid of
//! exactly touching unit boxes in the conformance kit a sharp test of every algorithm's boundary handling.
//!
//! Nothing here allocates, and nothing depends on anything beyond glam (and serde for configs).

mod aabb;
mod obb;
mod random;
mod ray;
mod sphere;

pub use aabb::{Aabb, AabbError};
pub use glam::{Mat3, Quat, Vec3, Vec3A};
pub use obb::Obb;
pub use random::Rng;
pub use ray::Ray;
pub use sphere::Sphere;
