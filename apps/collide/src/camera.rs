//! The cameras: the thesis's first-person walker and an orbit camera.
//!
//! The walker follows the thesis (section 4.2): the view direction comes from a yaw and a pitch; "forward" is
//! that direction flattened onto the ground plane and normalised, so looking up or down never slows walking;
//! keys set a *target* velocity that the walker accelerates toward, and after release its momentum carries
//! it on for a moment; the container's walls stop it along their normal and let it slide along them, like a
//! body bouncing off a wall keeps its tangential motion.

use crate::settings::{CameraMode, Settings};
use collide_math::Aabb;
use collide_render::Camera;
use glam::{Vec2, Vec3};

/// The movement keys held this frame, and the mouse's motion since the last frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveInput {
    /// W.
    pub forward: bool,
    /// S.
    pub back: bool,
    /// A.
    pub left: bool,
    /// D.
    pub right: bool,
    /// Space.
    pub up: bool,
    /// Ctrl.
    pub down: bool,
    /// Shift: four times faster.
    pub fast: bool,
    /// Mouse motion in pixels (look, or orbit drag).
    pub look: Vec2,
    /// Wheel lines (orbit zoom).
    pub zoom: f32,
}

/// Both cameras' state; the mode in [`Settings::camera`] says which one drives the view.
#[derive(Clone, Debug)]
pub struct CameraRig {
    /// The walker's eye.
    pub position: Vec3,
    /// The walker's velocity.
    pub velocity: Vec3,
    /// Rotation about +y, radians; 0 looks along −z.
    pub yaw: f32,
    /// Angle above the ground plane, radians.
    pub pitch: f32,
    /// The orbit camera's centre.
    pub target: Vec3,
    /// The orbit camera's distance from its centre.
    pub distance: f32,
    /// The orbit camera's yaw and pitch.
    pub orbit: Vec2,
}

/// The unit view direction of a yaw and pitch (the thesis's formula 4.1, with 0 looking along −z).
fn direction(yaw: f32, pitch: f32) -> Vec3 {
    Vec3::new(yaw.sin() * pitch.cos(), pitch.sin(), -yaw.cos() * pitch.cos())
}

const PITCH_LIMIT: f32 = 1.55;

impl CameraRig {
    /// The starting view of `container`: the walker inside, near the +z wall at two-thirds height, looking at
    /// the centre; the orbit camera outside, seeing all of it.
    #[must_use]
    pub fn new(container: &Aabb) -> Self {
        let (c, e) = (container.center(), container.extents());
        let position = c + Vec3::new(0.0, e.y * 0.2, e.z * 0.45);
        let to_center = c - position;
        Self {
            position,
            velocity: Vec3::ZERO,
            yaw: 0.0,
            pitch: (to_center.y / to_center.length().max(1e-6)).asin(),
            target: c,
            distance: e.length() * 1.1,
            orbit: Vec2::new(0.6, 0.45),
        }
    }

    /// The walker's view direction.
    #[must_use]
    pub fn forward(&self) -> Vec3 {
        direction(self.yaw, self.pitch)
    }

    /// Where the current mode's eye is.
    #[must_use]
    pub fn eye(&self, mode: CameraMode) -> Vec3 {
        match mode {
            CameraMode::FirstPerson => self.position,
            CameraMode::Orbit => self.target - direction(self.orbit.x, self.orbit.y) * self.distance,
        }
    }

    /// Advance by `dt` real seconds.
    pub fn update(&mut self, dt: f32, input: &MoveInput, settings: &Settings, container: &Aabb) {
        let width = container.extents().max_element();
        let axis = |plus: bool, minus: bool| f32::from(u8::from(plus)) - f32::from(u8::from(minus));
        match settings.camera {
            CameraMode::FirstPerson => {
                self.yaw += input.look.x * settings.mouse_sensitivity;
                self.pitch = (self.pitch - input.look.y * settings.mouse_sensitivity).clamp(-PITCH_LIMIT, PITCH_LIMIT);
                let f = self.forward();
                let flat = Vec3::new(f.x, 0.0, f.z).normalize_or(Vec3::NEG_Z);
                let side = flat.cross(Vec3::Y);
                let wish = flat * axis(input.forward, input.back)
                    + side * axis(input.right, input.left)
                    + Vec3::Y * axis(input.up, input.down);
                let speed = settings.move_speed * width * if input.fast { 4.0 } else { 1.0 };
                let target = wish.normalize_or_zero() * speed;
                // Exponential approach: frame-rate independent, and the same rate gives the momentum's decay.
                let blend = 1.0 - (-settings.acceleration * dt).exp();
                self.velocity += (target - self.velocity) * blend;
                self.position += self.velocity * dt;
                if settings.walls_stop_camera {
                    self.slide_inside(container, width * 0.01);
                }
            }
            CameraMode::Orbit => {
                self.orbit.x += input.look.x * settings.mouse_sensitivity;
                self.orbit.y =
                    (self.orbit.y + input.look.y * settings.mouse_sensitivity).clamp(-PITCH_LIMIT, PITCH_LIMIT);
                self.distance = (self.distance * 0.9f32.powf(input.zoom)).clamp(width * 0.01, width * 20.0);
                let f = direction(self.orbit.x, self.orbit.y);
                let flat = Vec3::new(f.x, 0.0, f.z).normalize_or(Vec3::NEG_Z);
                let pan = flat * axis(input.forward, input.back)
                    + flat.cross(Vec3::Y) * axis(input.right, input.left)
                    + Vec3::Y * axis(input.up, input.down);
                self.target += pan.normalize_or_zero() * settings.move_speed * width * dt;
            }
        }
    }

    /// Keep the walker `margin` inside the container: a wall removes the velocity into it and keeps the rest,
    /// so the walker slides along it.
    fn slide_inside(&mut self, container: &Aabb, margin: f32) {
        let lo = container.min + Vec3::splat(margin);
        let hi = (container.max - Vec3::splat(margin)).max(lo);
        for axis in 0..3 {
            if self.position[axis] < lo[axis] {
                self.position[axis] = lo[axis];
                self.velocity[axis] = self.velocity[axis].max(0.0);
            } else if self.position[axis] > hi[axis] {
                self.position[axis] = hi[axis];
                self.velocity[axis] = self.velocity[axis].min(0.0);
            }
        }
    }

    /// The render camera for the current mode.
    #[must_use]
    pub fn camera(&self, settings: &Settings, aspect: f32, container: &Aabb) -> Camera {
        let width = container.extents().max_element();
        let eye = self.eye(settings.camera);
        let forward = match settings.camera {
            CameraMode::FirstPerson => self.forward(),
            CameraMode::Orbit => self.target - eye,
        };
        let far = (eye - container.center()).length() + width * 2.0;
        Camera::look_to(eye, forward, settings.fov_degrees.to_radians(), aspect, (width * 1e-4).max(1e-4), far)
    }
}

#[cfg(test)]
mod tests;
