//! Response with rotation: impulses at contact points, with restitution and Coulomb friction.
//!
//! A sphere's contact normal passes through its centre, so an impulse along it cannot turn it: that is why the
//! sphere response ([`crate::resolve_contact`]) needs no rotation. A box's contact points lie off its centre, and
//! so does any friction impulse: each impulse `P` at a point `r` from the centre changes the linear velocity by
//! `P / m` and the angular velocity by `I⁻¹ (r × P)`, `I⁻¹` the inverse inertia tensor in world space
//! (`R · diag(I_body⁻¹) · Rᵀ` for the body's rotation `R`).
//!
//! **One contact, several points.** A manifold (up to four points for box–box, up to eight box corners past a
//! wall) is solved as one small problem by *sequential impulses with accumulated clamping* (Catto's projected
//! Gauss–Seidel, as in Box2D): per point a normal impulse `λₙ ≥ 0` and two tangent impulses kept within the
//! friction disc `|λₜ| ≤ μ·λₙ`, swept over the points until no impulse changes by more than a millionth of the
//! contact's speed (at most [`ITERATIONS`] sweeps). A single deepest point would rock a resting box from corner to
//! corner; the four together balance, as the simultaneous answer does.
//!
//! - **Restitution** is Newton's law per point: each point's target normal speed is `−e` times its approach speed
//!   before the contact was solved — or 0 when it approached slower than [`Material::rest_speed`] (the speed
//!   gravity gives in a couple of steps), so that a box resting on the floor is not bounced by its own weight
//!   every step. Without gravity `rest_speed` is 0: every approach bounces with `e`.
//! - **Friction** is Coulomb's: the tangent impulse opposes sliding at the point and is at most `μ` times the
//!   normal impulse there. It acts between two bodies, equal and opposite at the same point, so it conserves
//!   linear and angular momentum as the normal impulse does; `μ = 0` leaves only normal impulses.
//! - **Energy guard.** Newton's law at several points, or with friction, can in rare configurations hand out
//!   more energy than the contact had (Kane's paradox); a contact whose impulses would add kinetic energy has them
//!   all scaled down to add none (see `limit_energy`). Momentum is kept: the impulses stay equal and opposite.
//! - **Push-out** first, as for spheres: the bodies are moved apart along the normal by the deepest point's depth,
//!   split by inverse mass (translation only).
//!
//! Immovable things (the container's walls, static obstacles) are a body with zero inverse mass and inertia
//! ([`SpinState::fixed`]).

use collide_math::{Aabb, Mat3, Quat, Vec3};
use collide_narrowphase::ContactPoint;

/// The most sweeps over a contact's points.
pub const ITERATIONS: usize = 20;
/// The most points one contact can have: a box's eight corners past a wall (box–box manifolds have four).
pub const MAX_POINTS: usize = 8;

/// A body with rotation as the response sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpinState {
    /// The centre of mass.
    pub position: Vec3,
    /// The velocity of the centre.
    pub velocity: Vec3,
    /// 1 / mass; 0 for an immovable body.
    pub inv_mass: f32,
    /// The orientation (unit quaternion).
    pub rotation: Quat,
    /// The angular velocity in world space, radians per second (the simulation stores it in the body's frame:
    /// see [`SpinState::from_body_frame`]).
    pub angular_velocity: Vec3,
    /// The inverse of the inertia tensor's diagonal in the body's own frame (its principal axes); 0 for an
    /// immovable body.
    pub inv_inertia: Vec3,
}

impl SpinState {
    /// Something immovable at `position` (a wall, an obstacle): it takes impulses and gives nothing back.
    #[must_use]
    pub fn fixed(position: Vec3) -> Self {
        Self {
            position,
            velocity: Vec3::ZERO,
            inv_mass: 0.0,
            rotation: Quat::IDENTITY,
            angular_velocity: Vec3::ZERO,
            inv_inertia: Vec3::ZERO,
        }
    }

    /// The inverse inertia tensor in world space: `R · diag(inv_inertia) · Rᵀ`.
    #[must_use]
    pub fn inv_inertia_world(&self) -> Mat3 {
        let r = Mat3::from_quat(self.rotation);
        r * Mat3::from_diagonal(self.inv_inertia) * r.transpose()
    }

    /// A body whose angular velocity is given in its own frame (`body_angular_velocity`, as the simulation's
    /// columns hold it): turned into the world for the response.
    #[must_use]
    pub fn from_body_frame(
        position: Vec3,
        velocity: Vec3,
        inv_mass: f32,
        rotation: Quat,
        body_angular_velocity: Vec3,
        inv_inertia: Vec3,
    ) -> Self {
        let angular_velocity = rotation * body_angular_velocity;
        Self { position, velocity, inv_mass, rotation, angular_velocity, inv_inertia }
    }

    /// The angular velocity in the body's own frame (to store back in the simulation's columns).
    #[must_use]
    pub fn body_angular_velocity(&self) -> Vec3 {
        self.rotation.inverse() * self.angular_velocity
    }

    /// Kinetic energy, linear plus rotational: `½ m v² + ½ ωᵀ I ω` (0 for an immovable body).
    #[must_use]
    pub fn kinetic_energy(&self) -> f64 {
        if self.inv_mass <= 0.0 {
            return 0.0;
        }
        let linear = 0.5 * f64::from(self.velocity.length_squared()) / f64::from(self.inv_mass);
        linear + rotational_energy(self.body_angular_velocity(), self.inv_inertia)
    }
}

/// `½ ωᵀ I ω` for a body turning at `angular_velocity` **in its own frame** whose inverse principal inertia is
/// `inv_inertia` (an axis with inverse inertia 0 — immovable — adds nothing).
#[must_use]
pub fn rotational_energy(angular_velocity: Vec3, inv_inertia: Vec3) -> f64 {
    (0..3)
        .filter(|&k| inv_inertia[k] > 0.0)
        .map(|k| 0.5 * f64::from(angular_velocity[k]) * f64::from(angular_velocity[k]) / f64::from(inv_inertia[k]))
        .sum()
}

/// The inverse principal inertia of a solid box of half extents `h` and inverse mass `w`:
/// `I_x = m (h_y² + h_z²) / 3` and so on.
#[must_use]
pub fn box_inverse_inertia(h: Vec3, inv_mass: f32) -> Vec3 {
    let sq = h * h;
    Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y).recip() * (3.0 * inv_mass)
}

/// The inverse inertia of a solid sphere of radius `r` and inverse mass `w` (the same on every axis):
/// `I = 2 m r² / 5`.
#[must_use]
pub fn sphere_inverse_inertia(r: f32, inv_mass: f32) -> Vec3 {
    Vec3::splat(2.5 * inv_mass / (r * r))
}

/// Sweeps of [`advance_rotation`]'s implicit equation at most. Each divides the error by about `1 / (dt·|ω|)`: a
/// body turning a tenth of a radian per step settles to rounding in four or five, and a faster one keeps its energy
/// exactly anyway (the projection) and its momentum to the error the sweeps leave — about 2% over 20 000 steps at a
/// radian per step, a spin the step does not resolve anyway. (Twelve sweeps cost a quarter more at 10⁵ bodies of
/// the `uniform` scene, whose boxes spin up to a radian per step.)
const ROTATION_SWEEPS: usize = 8;

/// Turn a free body for `dt` seconds, with no torque acting: its new rotation and angular velocity, both the
/// angular velocities given **in the body's own frame** (its principal axes), as the simulation stores them.
///
/// A body whose inertia differs between its axes does not keep its angular velocity while it turns: its angular
/// *momentum* `L` stays (in the world), and `ω = I⁻¹ L` precesses (Euler's equations, `dL_b/dt = −ω_b × L_b` in the
/// body's frame). Holding `ω` fixed instead — the explicit shortcut — lets the kinetic energy `½ ω·L` drift up
/// and down as the body turns, so a scene of spinning boxes would gain and lose energy with no contact at all.
/// This step is the **implicit midpoint** rule in the body frame, `L₁ = L₀ − dt · ω_m × L_m` with
/// `L_m = (L₀ + L₁)/2`, `ω_m = I⁻¹ L_m` (solved by at most eight fixed-point sweeps from the explicit step), and the
/// rotation advanced by the **Cayley** rotation of `dt · ω_m` (the unit quaternion along `(1, dt·ω_m/2)`): the rule
/// keeps `½ L·I⁻¹L` and `|L|`, and the Cayley step makes the world momentum `R₁ L₁` equal `R₀ L₀` — exactly, once
/// the sweeps have settled. What the sweeps leave (a spin so fast that they do not settle, `dt·|ω|` near 1) is
/// taken out of the energy: `L₁` is scaled to the energy it had, so a free body never gains any; a spin of several
/// radians per step, where the sweeps diverge, keeps its angular velocity for the step (the explicit step).
///
/// Kept in the body frame, the step never turns a vector into the world and back: in `f32` that round trip
/// scales the momentum by a rounding bias of about 10⁻⁷ a step, always the same way — energy creeping up in a
/// long run. A body with the same inertia on every axis (a sphere, a cube) keeps `ω` exactly and needs no sweep.
#[must_use]
pub fn advance_rotation(rotation: Quat, angular_velocity: Vec3, inv_inertia: Vec3, dt: f32) -> (Quat, Vec3) {
    let (w0, inv) = (angular_velocity, inv_inertia);
    let mut wm = w0;
    let mut w1 = w0;
    // Equal inertia on every axis (or an immovable axis): `ω` is constant.
    let steady = (inv.x == inv.y && inv.y == inv.z) || !inv.cmpgt(Vec3::ZERO).all();
    if !steady {
        // Multiplications by the inertia rather than divisions by its inverse: a division costs ten of them.
        let inertia = inv.recip();
        let l0 = w0 * inertia;
        let tolerance = l0.length_squared() * 1e-12;
        let mut l1 = l0 - w0.cross(l0) * dt;
        for _ in 0..ROTATION_SWEEPS {
            let lm = (l0 + l1) * 0.5;
            let next = l0 - (inv * lm).cross(lm) * dt;
            let step = (next - l1).length_squared();
            l1 = next;
            if step <= tolerance {
                break;
            }
        }
        // The energy the sweeps should have kept, restored exactly — measured in f64, so that rounding has no
        // direction to drift in — and a sweep that diverged undone. (The factor is applied in f64 and rounded
        // once: an f32 factor near 1 rounds down more finely than up, which is a drift of its own.)
        let energy = |w: Vec3| (w.as_dvec3() * w.as_dvec3()).dot(inertia.as_dvec3());
        let w = inv * l1;
        let scale = (energy(w0) / energy(w)).sqrt();
        // The rule keeps |L|: a momentum that grew past twice its size is a sweep that diverged (a spin of several
        // radians per step, `dt·|ω| > 1`, each sweep multiplying the error), whose midpoint would turn the body by
        // an overflowing angle — a NaN rotation.
        let diverged = l1.length_squared() > 4.0 * l0.length_squared();
        if scale.is_finite() && scale > 0.0 && !diverged {
            w1 = (w.as_dvec3() * scale).as_vec3();
        } else {
            l1 = l0;
        }
        wm = inv * (l0 + l1) * 0.5;
    }
    let half = wm * (0.5 * dt);
    let turn = Quat::from_xyzw(half.x, half.y, half.z, 1.0).normalize();
    ((rotation * turn).normalize(), w1)
}

/// How contacts respond: restitution, friction, and the approach speed below which a contact is resting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Newton's restitution `e`: 1 elastic, 0 plastic.
    pub restitution: f32,
    /// Coulomb's friction coefficient `μ ≥ 0`.
    pub friction: f32,
    /// A point approaching slower than this is resting: its target speed is 0, not `e` times the approach.
    pub rest_speed: f32,
}

/// One point of a contact while it is solved.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    /// The point relative to `a`'s and `b`'s centres.
    ra: Vec3,
    rb: Vec3,
    /// `1 / k` along the normal and the two tangents (`k` the effective inverse mass at the point).
    mass: [f32; 3],
    /// The normal speed to reach (restitution).
    target: f32,
    /// The impulses so far: normal, then the two tangents.
    lambda: [f32; 3],
}

/// The two bodies of a contact while it is solved, with their world inverse inertias.
struct Pair<'a> {
    a: &'a mut SpinState,
    b: &'a mut SpinState,
    ia: Mat3,
    ib: Mat3,
}

impl Pair<'_> {
    /// The velocity of `a`'s point `ra` relative to `b`'s point `rb`.
    #[inline]
    fn relative_velocity(&self, ra: Vec3, rb: Vec3) -> Vec3 {
        (self.a.velocity + self.a.angular_velocity.cross(ra)) - (self.b.velocity + self.b.angular_velocity.cross(rb))
    }

    /// The impulse `p` on `a` at `ra`, and `−p` on `b` at `rb`.
    #[inline]
    fn apply(&mut self, ra: Vec3, rb: Vec3, p: Vec3) {
        self.a.velocity += p * self.a.inv_mass;
        self.a.angular_velocity += self.ia * ra.cross(p);
        self.b.velocity -= p * self.b.inv_mass;
        self.b.angular_velocity -= self.ib * rb.cross(p);
    }

    /// `1 / k` for an impulse along `d` at the points: `k = w_a + w_b + (I_a⁻¹(r_a×d))·(r_a×d) + …`; 0 when
    /// nothing can move.
    #[inline]
    fn mass_along(&self, ra: Vec3, rb: Vec3, d: Vec3) -> f32 {
        let (ca, cb) = (ra.cross(d), rb.cross(d));
        let k = self.a.inv_mass + self.b.inv_mass + (self.ia * ca).dot(ca) + (self.ib * cb).dot(cb);
        if k > 0.0 { 1.0 / k } else { 0.0 }
    }
}

/// Resolve one contact between `a` and `b` whose normal points from `b` toward `a`, at `points` (at most
/// [`MAX_POINTS`]; more are ignored): push the bodies apart by the deepest point's depth split by inverse mass
/// (when `push`), then the impulses of the module docs. Returns `true` when an impulse was applied.
pub fn resolve_manifold(
    a: &mut SpinState,
    b: &mut SpinState,
    normal: Vec3,
    points: &[ContactPoint],
    push: bool,
    material: &Material,
) -> bool {
    let points = &points[..points.len().min(MAX_POINTS)];
    if points.is_empty() || a.inv_mass + b.inv_mass <= 0.0 {
        return false;
    }
    if push {
        let depth = points.iter().fold(0.0_f32, |d, p| d.max(p.depth));
        let mut sa = crate::BodyState { position: a.position, velocity: a.velocity, inv_mass: a.inv_mass };
        let mut sb = crate::BodyState { position: b.position, velocity: b.velocity, inv_mass: b.inv_mass };
        crate::push_apart(&mut sa, &mut sb, normal, depth);
        (a.position, b.position) = (sa.position, sb.position);
    }
    // Both bodies' lever arms reach the same world point, from where the bodies are after the push: the two
    // impulses of a point are then equal and opposite at one place, which is what conserves angular momentum.
    let mut rows = [Row::default(); MAX_POINTS];
    for (row, p) in rows.iter_mut().zip(points) {
        (row.ra, row.rb) = (p.point - a.position, p.point - b.position);
    }
    let (ia, ib) = (a.inv_inertia_world(), b.inv_inertia_world());
    let mut pair = Pair { a, b, ia, ib };
    solve_velocities(&mut pair, &mut rows[..points.len()], normal, material)
}

/// The sequential impulses over the rows (see the module docs). Returns `true` when some impulse was applied.
fn solve_velocities(pair: &mut Pair<'_>, rows: &mut [Row], normal: Vec3, material: &Material) -> bool {
    let (t1, t2) = normal.any_orthonormal_pair();
    let mut speed = 0.0_f32;
    for row in rows.iter_mut() {
        let v = pair.relative_velocity(row.ra, row.rb);
        let vn = v.dot(normal);
        row.target = if vn < -material.rest_speed { -material.restitution * vn } else { 0.0 };
        row.mass = [normal, t1, t2].map(|d| pair.mass_along(row.ra, row.rb, d));
        speed = speed.max(v.length());
    }
    if speed == 0.0 || !speed.is_finite() {
        return false;
    }
    let tolerance = speed * 1e-6;
    let before = (*pair.a, *pair.b);
    let mut applied = false;
    for _ in 0..ITERATIONS {
        let mut change = 0.0_f32;
        if material.friction > 0.0 {
            for row in rows.iter_mut() {
                let v = pair.relative_velocity(row.ra, row.rb);
                let want = [row.lambda[1] - v.dot(t1) * row.mass[1], row.lambda[2] - v.dot(t2) * row.mass[2]];
                let limit = material.friction * row.lambda[0];
                let len = (want[0] * want[0] + want[1] * want[1]).sqrt();
                let scale = if len > limit { limit / len } else { 1.0 };
                let (d1, d2) = (want[0] * scale - row.lambda[1], want[1] * scale - row.lambda[2]);
                (row.lambda[1], row.lambda[2]) = (row.lambda[1] + d1, row.lambda[2] + d2);
                if d1 != 0.0 || d2 != 0.0 {
                    pair.apply(row.ra, row.rb, t1 * d1 + t2 * d2);
                    change = change.max(safe_ratio(d1.abs(), row.mass[1])).max(safe_ratio(d2.abs(), row.mass[2]));
                }
            }
        }
        for row in rows.iter_mut() {
            let vn = pair.relative_velocity(row.ra, row.rb).dot(normal);
            let total = (row.lambda[0] + (row.target - vn) * row.mass[0]).max(0.0);
            let d = total - row.lambda[0];
            row.lambda[0] = total;
            if d != 0.0 {
                pair.apply(row.ra, row.rb, normal * d);
                change = change.max(safe_ratio(d.abs(), row.mass[0]));
                applied = true;
            }
        }
        if change <= tolerance {
            break;
        }
    }
    if applied {
        limit_energy(pair, &before);
    }
    applied
}

/// The energy guard: when the contact's impulses added kinetic energy, scale them all down (every velocity change
/// of both bodies by the same factor `s`) to the largest `s` that adds none.
///
/// Newton's restitution per point, with Coulomb friction coupled to the normal through the bodies' rotation, can
/// add energy in rare configurations (Kane's paradox; the random hits of the tests meet it about once in a few
/// hundred rubbing hits at `e = 1`, by a few tenths of a percent). Scaling keeps momentum — every impulse keeps its
/// equal and opposite partner at the same point — and keeps the bodies separating at that point of contact for
/// `s > ½` when `e = 1`. The energy after is `E(s) = E₀ + a·s + b·s²` (a quadratic in `s`, `b ≥ 0`), so the factor
/// is the other root of `a·s + b·s² = 0`.
fn limit_energy(pair: &mut Pair<'_>, before: &(SpinState, SpinState)) {
    let (mut a, mut b) = (0.0_f64, 0.0_f64);
    for (now, then) in [(&*pair.a, &before.0), (&*pair.b, &before.1)] {
        if now.inv_mass <= 0.0 {
            continue;
        }
        let m = 1.0 / f64::from(now.inv_mass);
        let (v0, dv) = (then.velocity.as_dvec3(), (now.velocity - then.velocity).as_dvec3());
        a += m * v0.dot(dv);
        b += 0.5 * m * dv.length_squared();
        let q = now.rotation.as_dquat().normalize().inverse();
        let (l0, dl) =
            (q * then.angular_velocity.as_dvec3(), q * (now.angular_velocity - then.angular_velocity).as_dvec3());
        for k in (0..3).filter(|&k| now.inv_inertia[k] > 0.0) {
            let i = 1.0 / f64::from(now.inv_inertia[k]);
            a += i * l0[k] * dl[k];
            b += 0.5 * i * dl[k] * dl[k];
        }
    }
    if a + b <= 0.0 || b <= 0.0 {
        return;
    }
    let s = (-a / b).clamp(0.0, 1.0) as f32;
    for (now, then) in [(&mut *pair.a, &before.0), (&mut *pair.b, &before.1)] {
        now.velocity = then.velocity + (now.velocity - then.velocity) * s;
        now.angular_velocity = then.angular_velocity + (now.angular_velocity - then.angular_velocity) * s;
    }
}

/// `impulse / mass`: the speed an impulse changes at its point (0 where nothing can move).
#[inline]
fn safe_ratio(impulse: f32, mass: f32) -> f32 {
    if mass > 0.0 { impulse / mass } else { 0.0 }
}

/// A body's shape as the walls see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WallShape {
    /// A sphere of this radius: one point per wall, its lowest toward the wall.
    Sphere(f32),
    /// A box of these half extents (turned by the body's rotation): the corners past the wall.
    Box(Vec3),
}

/// Keep a body that spins inside `container`: against each wall it is past, it is pushed back by its deepest
/// point's depth and the points past the wall get the impulses of [`resolve_manifold`] against an immovable
/// wall (restitution, friction, torque). Returns `true` when a wall was hit.
///
/// The body's points — a box's eight corners, a sphere's centre with its radius — are found once, and a body whose
/// bounding box is inside the container costs that and six comparisons.
pub fn spin_wall(state: &mut SpinState, shape: WallShape, container: &Aabb, material: &Material) -> bool {
    let (mut corners, count, reach) = match shape {
        WallShape::Sphere(r) => ([state.position; 8], 1, Vec3::splat(r)),
        WallShape::Box(h) => {
            let m = Mat3::from_quat(state.rotation);
            let corners = std::array::from_fn(|k| {
                let s = Vec3::new(
                    if k & 1 == 0 { -1.0 } else { 1.0 },
                    if k & 2 == 0 { -1.0 } else { 1.0 },
                    if k & 4 == 0 { -1.0 } else { 1.0 },
                );
                state.position + m * (h * s)
            });
            (corners, 8, Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs()) * h)
        }
    };
    // The sphere's one point is its centre, pushed out by its radius toward each wall.
    let radius = if let WallShape::Sphere(r) = shape { r } else { 0.0 };
    if (state.position - reach).cmpgt(container.min).all() && (state.position + reach).cmplt(container.max).all() {
        return false;
    }
    let mut hit = false;
    for axis in 0..3 {
        for (plane, sign) in [(container.min[axis], 1.0_f32), (container.max[axis], -1.0)] {
            let normal = Vec3::AXES[axis] * sign;
            let mut points = [ContactPoint::default(); MAX_POINTS];
            let mut len = 0;
            for c in &corners[..count] {
                let depth = (plane - c[axis]) * sign + radius;
                if depth > 0.0 {
                    // Where the point is once the body has moved out by the deepest depth: filled in below.
                    points[len] = ContactPoint { point: *c - normal * radius, depth };
                    len += 1;
                }
            }
            if len == 0 {
                continue;
            }
            hit = true;
            let depth = points[..len].iter().fold(0.0_f32, |d, p| d.max(p.depth));
            state.position += normal * depth;
            for c in &mut corners[..count] {
                *c += normal * depth;
            }
            let mut wall = SpinState::fixed(state.position);
            let (ia, ib) = (state.inv_inertia_world(), Mat3::ZERO);
            let mut rows = [Row::default(); MAX_POINTS];
            for (row, p) in rows.iter_mut().zip(&points[..len]) {
                (row.ra, row.rb) = (p.point + normal * depth - state.position, Vec3::ZERO);
            }
            let mut pair = Pair { a: state, b: &mut wall, ia, ib };
            solve_velocities(&mut pair, &mut rows[..len], normal, material);
        }
    }
    hit
}

#[cfg(test)]
mod tests;
