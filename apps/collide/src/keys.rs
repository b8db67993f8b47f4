//! The keys: one table that the window dispatches from, the help overlay lists and README.md's key table copies
//! (a test compares the two row by row).
//!
//! A key either moves the camera while it is held (the movement keys set [`MoveInput`]'s flags) or queues a
//! [`Command`] when pressed, which the app applies at the end of the frame like a button's: a key and a button do
//! the same thing, through the same code.

use crate::app::{Command, Panel, WindowCommand};
use crate::camera::MoveInput;
use winit::keyboard::KeyCode;

/// A row of the key table: what the help and the README show, and what the keys do.
pub struct KeyRow {
    /// The keys as shown (`W A S D`, `Ctrl+Q`).
    pub keys: &'static str,
    /// What they do, in words.
    pub action: &'static str,
    /// What each physical key does; empty for a row about the mouse, which the window handles itself.
    pub bindings: &'static [(KeyCode, Binding)],
}

/// What a key does.
pub enum Binding {
    /// Moves the camera while held.
    Hold(Move),
    /// Queues the command when pressed.
    Press(Command),
    /// Queues the command when pressed with Ctrl held.
    CtrlPress(Command),
}

/// A movement held down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Forward, along the view flattened to the ground.
    Forward,
    /// Back.
    Back,
    /// Left.
    Left,
    /// Right.
    Right,
    /// Up.
    Up,
    /// Down.
    Down,
    /// Four times faster.
    Fast,
}

impl Move {
    /// The flag of `input` this movement sets while held.
    fn flag(self, input: &mut MoveInput) -> &mut bool {
        match self {
            Self::Forward => &mut input.forward,
            Self::Back => &mut input.back,
            Self::Left => &mut input.left,
            Self::Right => &mut input.right,
            Self::Up => &mut input.up,
            Self::Down => &mut input.down,
            Self::Fast => &mut input.fast,
        }
    }
}

use Binding::{CtrlPress, Hold, Press};

/// Every key, in the order the help and the README list them.
pub const KEYS: &[KeyRow] = &[
    KeyRow {
        keys: "W A S D",
        action: "move relative to the view (forward is the view flattened to the ground)",
        bindings: &[
            (KeyCode::KeyW, Hold(Move::Forward)),
            (KeyCode::KeyA, Hold(Move::Left)),
            (KeyCode::KeyS, Hold(Move::Back)),
            (KeyCode::KeyD, Hold(Move::Right)),
        ],
    },
    KeyRow {
        keys: "Space / Ctrl",
        action: "up / down",
        bindings: &[
            (KeyCode::Space, Hold(Move::Up)),
            (KeyCode::ControlLeft, Hold(Move::Down)),
            (KeyCode::ControlRight, Hold(Move::Down)),
        ],
    },
    KeyRow {
        keys: "Shift",
        action: "move four times faster",
        bindings: &[(KeyCode::ShiftLeft, Hold(Move::Fast)), (KeyCode::ShiftRight, Hold(Move::Fast))],
    },
    KeyRow { keys: "click the scene", action: "capture the mouse to look around", bindings: &[] },
    KeyRow {
        keys: "Esc",
        action: "release the mouse",
        bindings: &[(KeyCode::Escape, Press(Command::Window(WindowCommand::CaptureMouse(false))))],
    },
    KeyRow {
        keys: "C",
        action: "first-person / orbit camera (orbit: drag to turn, wheel to zoom)",
        bindings: &[(KeyCode::KeyC, Press(Command::ToggleCamera))],
    },
    KeyRow { keys: "Home", action: "reset the camera", bindings: &[(KeyCode::Home, Press(Command::ResetCamera))] },
    KeyRow {
        keys: "G",
        action: "pull everything toward me: the eye, or the orbit camera's centre (the bodies arrive together)",
        bindings: &[(KeyCode::KeyG, Press(Command::PullTowardMe))],
    },
    KeyRow {
        keys: "P",
        action: "pause / resume (a replay too)",
        bindings: &[(KeyCode::KeyP, Press(Command::TogglePause))],
    },
    KeyRow {
        keys: "N",
        action: "single step (pauses; a replay: the next frame)",
        bindings: &[(KeyCode::KeyN, Press(Command::SingleStep))],
    },
    KeyRow {
        keys: "R",
        action: "respawn the scene (a replay: back to its first frame)",
        bindings: &[(KeyCode::KeyR, Press(Command::Respawn))],
    },
    KeyRow {
        keys: "Left / Right",
        action: "a replay: the previous / next frame",
        bindings: &[(KeyCode::ArrowLeft, Press(Command::SeekBy(-1))), (KeyCode::ArrowRight, Press(Command::SeekBy(1)))],
    },
    KeyRow {
        keys: "B",
        action: "the algorithm's debug view (octree cells, tree nodes, grid regions, …) on / off",
        bindings: &[(KeyCode::KeyB, Press(Command::ToggleDebugView))],
    },
    KeyRow {
        keys: "V",
        action: "rendering on / off (measure the step without drawing)",
        bindings: &[(KeyCode::KeyV, Press(Command::ToggleRendering))],
    },
    KeyRow {
        keys: "L",
        action: "place a point light at the eye",
        bindings: &[(KeyCode::KeyL, Press(Command::AddLight))],
    },
    KeyRow {
        keys: "F1",
        action: "help: this list of keys",
        bindings: &[(KeyCode::F1, Press(Command::TogglePanel(Panel::Help)))],
    },
    KeyRow {
        keys: "F2",
        action: "controls panel (or right-click)",
        bindings: &[(KeyCode::F2, Press(Command::TogglePanel(Panel::Controls)))],
    },
    KeyRow {
        keys: "F3",
        action: "statistics panel, docked on the right (with auto: its candidates, predictions and decisions)",
        bindings: &[(KeyCode::F3, Press(Command::TogglePanel(Panel::Stats)))],
    },
    KeyRow {
        keys: "F4",
        action: "puffin profiler (the broadphase's rayon workers are rows of their own)",
        bindings: &[(KeyCode::F4, Press(Command::TogglePanel(Panel::Profiler)))],
    },
    KeyRow {
        keys: "F5",
        action: "save a .puffin capture of recent frames",
        bindings: &[(KeyCode::F5, Press(Command::Window(WindowCommand::SaveProfile)))],
    },
    KeyRow {
        keys: "F6",
        action: "record every step's boxes to a .aabbs file (a red REC counter shows while it runs) / stop and keep it",
        bindings: &[(KeyCode::F6, Press(Command::ToggleRecording))],
    },
    KeyRow {
        keys: "Ctrl+Q",
        action: "quit",
        bindings: &[(KeyCode::KeyQ, CtrlPress(Command::Window(WindowCommand::Quit)))],
    },
];

/// A key went down (`pressed`) or up, with Ctrl held or not: set the movement it holds in `input`, and return
/// the command it queues, if any. A key the table does not name does nothing.
pub fn key(code: KeyCode, pressed: bool, ctrl: bool, input: &mut MoveInput) -> Option<Command> {
    let mut command = None;
    for (_, binding) in KEYS.iter().flat_map(|row| row.bindings).filter(|(c, _)| *c == code) {
        match binding {
            Hold(m) => *m.flag(input) = pressed,
            Press(c) if pressed => command = Some(c.clone()),
            CtrlPress(c) if pressed && ctrl => command = Some(c.clone()),
            Press(_) | CtrlPress(_) => {}
        }
    }
    command
}

#[cfg(test)]
mod tests;
