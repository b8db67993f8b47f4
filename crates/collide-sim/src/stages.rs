//! The stages of a step whose work depends on the bodies' shapes, and what they hand each other.
//!
//! Two questions decide them, and a step answers both once, before its first stage (`Simulation::step`):
//!
//! - the **geometry** — are some bodies boxes? — sets integration, the boxes and the narrowphase: [`Spheres`], or
//!   [`Boxes`] (the boxes turned after integration, a box's AABB from its orientation, the narrowphase dispatched
//!   on the pair's shapes with a manifold for every pair with a box);
//! - the **response** — do the bodies spin (boxes, or friction)? — sets resolution and the walls: [`Plain`]
//!   (push-out and impulse along the normal, walls that reflect the velocity), or [`Spinning`] (impulses at the
//!   contact points with friction and torque, walls met at a box's corners).
//!
//! A scene of spheres without friction is `Spheres` + `Plain`: it never reads or holds a spin column, and its bits
//! are those it had before boxes existed (the golden hashes). Spheres with friction are `Spheres` + `Spinning`; a
//! scene with boxes is `Boxes` + `Spinning`.
//!
//! Each stage reads and writes only what its signature names. The narrowphase hands its [`Contacts`] to
//! resolution; resolution's caller marks the contacts' bodies ([`ContactBodies`]) and hands them, with the box
//! pass's list of bodies outside, to the walls ([`WallLists`]).

use crate::passes::{self, BoxPass, WallColumns, WallLists};
use crate::spin_passes::{self, SpinWallColumns, SpinWallSetup};
use crate::{Bodies, Spin};
use collide_broadphase::{Pair, Parallelism};
use collide_math::{Aabb, Obb, Vec3};
use collide_narrowphase::{Contact, Manifold, Shape, ShapeContacts, SphereContacts};
use collide_resolution::{ContactBodies, Material, Solver, SphereColumns};

/// What every stage of one step reads and none changes, computed once at the start of the step.
#[derive(Clone, Copy, Debug)]
pub struct StepContext {
    /// When the step's own passes go to rayon's threads.
    pub parallelism: Parallelism,
    /// The step's duration in seconds.
    pub dt: f32,
    /// The scene's gravity.
    pub gravity: Vec3,
    /// The container.
    pub container: Aabb,
    /// The contacts' material: the scene's restitution and friction, and the resting speed for `dt`.
    pub material: Material,
    /// The step's index (the contact stamp).
    pub step: u64,
}

/// The narrowphase's output, resolution's input: the touching pairs and how they touch, each list in the pairs'
/// order.
#[derive(Debug, Default)]
pub struct Contacts {
    /// The touching sphere–sphere pairs (every touching pair of a scene without boxes).
    pub spheres: Vec<(Pair, Contact)>,
    /// The touching pairs with a box and their manifolds (empty without boxes).
    pub manifolds: Vec<(Pair, Manifold)>,
}

impl Contacts {
    /// How many pairs touch.
    #[must_use]
    pub fn len(&self) -> usize {
        self.spheres.len() + self.manifolds.len()
    }

    /// The touching pairs: the spheres', then those with a box.
    pub fn pairs(&self) -> impl Iterator<Item = Pair> + '_ {
        self.spheres.iter().map(|(p, _)| *p).chain(self.manifolds.iter().map(|(p, _)| *p))
    }
}

/// The narrowphase's per-chunk buffers, kept across steps.
#[derive(Debug, Default)]
pub struct NarrowphaseBuffers {
    /// For [`Spheres`].
    spheres: SphereContacts,
    /// For [`Boxes`].
    shapes: ShapeContacts,
}

/// The stages set by the bodies' shapes (see the module docs). The step calls them in this order, with the
/// broadphase between `boxes` and `narrowphase`.
pub trait Geometry: Sync {
    /// `v += g·dt; p += v·dt` for every body (and every box turned for `dt`).
    fn integrate(&self, cx: &StepContext, bodies: &mut Bodies);

    /// Every body's box and motion flag, the bodies outside the container listed ([`passes::boxes`]). Returns
    /// `true` when some box is not finite.
    fn boxes(
        &self,
        cx: &StepContext,
        bodies: &Bodies,
        aabbs: &mut [Aabb],
        moved: &mut [bool],
        pass: BoxPass<'_>,
    ) -> bool;

    /// The exact test on every candidate pair: `contacts` := the touching pairs and how they touch.
    fn narrowphase(
        &self,
        cx: &StepContext,
        buffers: &mut NarrowphaseBuffers,
        pairs: &[Pair],
        bodies: &Bodies,
        contacts: &mut Contacts,
    );
}

/// The stages set by whether the bodies spin (see the module docs).
pub trait Response: Sync {
    /// Push-out and impulse for every contact, with the answer of resolving them one by one in ascending pair
    /// order ([`Solver`]); `contact_bodies` are the contacts' bodies.
    fn resolve(
        &self,
        cx: &StepContext,
        solver: &mut Solver,
        contacts: &Contacts,
        contact_bodies: &ContactBodies,
        bodies: &mut Bodies,
    );

    /// The container's walls for the bodies that can be outside it ([`WallLists`]); the contacts' bodies get their
    /// `last_contact` stamp.
    fn walls(&self, cx: &StepContext, lists: WallLists<'_>, bodies: &mut Bodies);
}

/// The geometry of spheres only.
pub struct Spheres;

/// The geometry of a scene with boxes.
pub struct Boxes;

/// The response of bodies that do not spin: spheres without friction.
pub struct Plain;

/// The response of bodies that spin: boxes, or friction.
pub struct Spinning;

/// The stages for these bodies' shapes — the step's shape decision, taken after the scenario's script (which may
/// append boxes). A removal of non-finite bodies later in the step may leave [`Boxes`] with spheres only, which it
/// treats exactly as [`Spheres`] would.
#[must_use]
pub fn shape_stages(bodies: &Bodies) -> (&'static dyn Geometry, &'static dyn Response) {
    match bodies.spin() {
        None => (&Spheres, &Plain),
        Some(spin) if spin.boxes() == 0 => (&Spheres, &Spinning),
        Some(_) => (&Boxes, &Spinning),
    }
}

/// Why the spin stages may take the bodies' spin columns as given: the step chose them because the bodies have
/// them.
const CHOSEN_FOR_SPIN: &str = "the spin stages run on bodies with spin columns";

impl Geometry for Spheres {
    fn integrate(&self, cx: &StepContext, b: &mut Bodies) {
        puffin::profile_scope!("integrate");
        passes::integrate(cx.parallelism, &mut b.position, &mut b.velocity, cx.gravity, cx.dt);
    }

    fn boxes(&self, cx: &StepContext, b: &Bodies, aabbs: &mut [Aabb], moved: &mut [bool], pass: BoxPass<'_>) -> bool {
        passes::boxes(cx.parallelism, &b.position, &b.radius, aabbs, moved, pass, passes::sphere_aabb)
    }

    fn narrowphase(
        &self,
        cx: &StepContext,
        buffers: &mut NarrowphaseBuffers,
        pairs: &[Pair],
        b: &Bodies,
        contacts: &mut Contacts,
    ) {
        puffin::profile_scope!("narrowphase");
        contacts.manifolds.clear();
        buffers.spheres.find(cx.parallelism, pairs, &b.position, &b.radius, &mut contacts.spheres);
    }
}

impl Geometry for Boxes {
    /// Integration, then the boxes turned ([`spin_passes::rotate`]).
    fn integrate(&self, cx: &StepContext, b: &mut Bodies) {
        puffin::profile_scope!("integrate");
        passes::integrate(cx.parallelism, &mut b.position, &mut b.velocity, cx.gravity, cx.dt);
        spin_passes::rotate(cx.parallelism, b.spin.as_mut().expect(CHOSEN_FOR_SPIN), cx.dt);
    }

    /// A box's AABB from its orientation (`Obb::aabb`), a sphere's from its radius.
    fn boxes(&self, cx: &StepContext, b: &Bodies, aabbs: &mut [Aabb], moved: &mut [bool], pass: BoxPass<'_>) -> bool {
        let spin = b.spin().expect(CHOSEN_FOR_SPIN);
        let (shape, half, rotation) = (&spin.shape, &spin.half_extents, &spin.rotation);
        passes::boxes(cx.parallelism, &b.position, &b.radius, aabbs, moved, pass, |i, p, r| {
            if shape[i] == Shape::Box {
                Obb::new(p, half[i], rotation[i]).aabb()
            } else {
                Aabb::from_center_radius(p, r)
            }
        })
    }

    /// The test chosen per pair by the bodies' shapes (`ShapeContacts`): sphere–sphere pairs give the spheres'
    /// contacts, the pairs with a box their manifolds.
    fn narrowphase(
        &self,
        cx: &StepContext,
        buffers: &mut NarrowphaseBuffers,
        pairs: &[Pair],
        bodies: &Bodies,
        contacts: &mut Contacts,
    ) {
        puffin::profile_scope!("narrowphase");
        let columns = bodies.shape_columns().expect(CHOSEN_FOR_SPIN);
        buffers.shapes.find(cx.parallelism, pairs, &columns, &mut contacts.spheres, &mut contacts.manifolds);
    }
}

impl Response for Plain {
    fn resolve(
        &self,
        cx: &StepContext,
        solver: &mut Solver,
        contacts: &Contacts,
        contact_bodies: &ContactBodies,
        b: &mut Bodies,
    ) {
        puffin::profile_scope!("resolution");
        let columns =
            SphereColumns { position: &b.position, velocity: &b.velocity, inv_mass: &b.inv_mass, radius: &b.radius };
        solver.solve(cx.parallelism, &contacts.spheres, contact_bodies, &columns, cx.material.restitution);
        solver.write_back(cx.parallelism, contact_bodies, &mut b.position, &mut b.velocity);
    }

    fn walls(&self, cx: &StepContext, lists: WallLists<'_>, b: &mut Bodies) {
        puffin::profile_scope!("walls");
        let columns =
            WallColumns { position: &mut b.position, velocity: &mut b.velocity, last_contact: &mut b.last_contact };
        passes::walls(cx.parallelism, columns, &b.radius, lists, (cx.container, cx.material.restitution, cx.step));
    }
}

impl Response for Spinning {
    /// Every contact at its points ([`Solver::solve_spin`]), the angular velocities written back beside the
    /// positions and velocities.
    fn resolve(
        &self,
        cx: &StepContext,
        solver: &mut Solver,
        contacts: &Contacts,
        contact_bodies: &ContactBodies,
        b: &mut Bodies,
    ) {
        puffin::profile_scope!("resolution");
        let columns = b.spin_columns().expect(CHOSEN_FOR_SPIN);
        let (spheres, manifolds) = (&contacts.spheres, &contacts.manifolds);
        solver.solve_spin(cx.parallelism, spheres, manifolds, contact_bodies, &columns, &cx.material);
        solver.write_back(cx.parallelism, contact_bodies, &mut b.position, &mut b.velocity);
        let spin = b.spin.as_mut().expect(CHOSEN_FOR_SPIN);
        solver.write_back_spin(cx.parallelism, contact_bodies, &mut spin.angular_velocity);
    }

    /// The walls with spin ([`spin_passes::spin_walls`]).
    fn walls(&self, cx: &StepContext, lists: WallLists<'_>, b: &mut Bodies) {
        puffin::profile_scope!("walls");
        let Bodies { position, velocity, radius, inv_mass, last_contact, spin, id: _ } = b;
        let Spin { shape, rotation, half_extents, inv_inertia, angular_velocity, .. } =
            spin.as_mut().expect(CHOSEN_FOR_SPIN);
        let setup = SpinWallSetup {
            radius,
            inv_mass,
            shape,
            rotation,
            half_extents,
            inv_inertia,
            container: cx.container,
            material: cx.material,
            step: cx.step,
        };
        let columns = SpinWallColumns { position, velocity, last_contact, angular_velocity };
        spin_passes::spin_walls(cx.parallelism, columns, &setup, lists);
    }
}
