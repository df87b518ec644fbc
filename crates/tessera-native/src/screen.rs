//! `screen_capture`: the whole screen, one window (by title) or a region, as a PNG. On X11
//! through the X protocol itself (x11rb, no C library), so the package needs nothing more for
//! it; in a Wayland session through the desktop's screenshot portal ([`crate::portal`]), where
//! the person picks the window or region in the desktop's own dialog.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tessera_engine::tools::{
    RetryPolicy, ToolContext, ToolFailure, ToolFailureCode, ToolKind, ToolSpec,
};
use tessera_protocol::mcp_cp::{PermissionLevel, Runtime};
use tessera_store::Store;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, ImageFormat, ImageOrder, MapState, Window};
use x11rb::rust_connection::RustConnection;

use crate::images;
use crate::own_windows::{HiddenWindows, OwnWindows, GONE_TIMEOUT, REPAINT};

pub const NAME: &str = "screen_capture";

/// Largest side accepted, a guard against a nonsense display size.
const MAX_SIDE: u16 = 16_384;

pub fn spec() -> ToolSpec {
    ToolSpec::new(
        NAME,
        "Takes a screenshot of this computer's screen and shows it to you as an image. \
         `target`: `screen` (everything), `window` (the window whose title contains \
         `window_title`), or `region` (`region`: x, y, width, height in screen pixels). The \
         person is asked for consent first.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "target": {"type": "string", "enum": ["screen", "window", "region"], "default": "screen"},
            "window_title": {"type": "string", "minLength": 1, "maxLength": 200},
            "region": {
                "type": "object",
                "properties": {
                    "x": {"type": "integer", "minimum": 0},
                    "y": {"type": "integer", "minimum": 0},
                    "width": {"type": "integer", "minimum": 1},
                    "height": {"type": "integer", "minimum": 1}
                },
                "required": ["x", "y", "width", "height"],
                "additionalProperties": false
            }
        },
        "additionalProperties": false
    }))
    .kind(ToolKind::FrontEnd)
    .runtime(Runtime::Frontend)
    .permission(PermissionLevel::UserConsent)
    .reads(["screen"])
    .safe(true)
    .timeout_ms(15_000)
    .estimated_ms(300)
    .retry(RetryPolicy::none())
}

/// Whether the screen can be read here: a Wayland session with a session bus (the portal), or
/// an X display that answers.
pub fn probe() -> Result<(), crate::NotHere> {
    use crate::NotHere;
    if crate::portal::wayland_session() {
        return match std::env::var_os("DBUS_SESSION_BUS_ADDRESS") {
            Some(_) => Ok(()),
            None => Err(NotHere::WaylandWithoutBus),
        };
    }
    if std::env::var_os("DISPLAY").is_none() {
        return Err(NotHere::NoDisplay);
    }
    x11rb::connect(None)
        .map(|_| ())
        .map_err(|error| NotHere::DisplayDoesNotAnswer(error.to_string()))
}

pub fn handler(
    store: Arc<Store>,
    windows: Arc<dyn OwnWindows>,
) -> impl Fn(
    Value,
    ToolContext,
)
    -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, ToolFailure>> + Send>>
       + Send
       + Sync {
    move |args: Value, _ctx: ToolContext| {
        let store = store.clone();
        let windows = windows.clone();
        Box::pin(async move {
            let target = Target::from_args(&args)?;
            let hidden = hide_own_windows(windows.as_ref()).await;
            let taken = take(target).await;
            if let Some(hidden) = hidden {
                hidden.restore().await;
            }
            let (image, what) = taken?;
            let size = image.dimensions();
            let png = images::encode_png(&image)?;
            let entry = images::attach(&store, &png, "image/png", size, "screenshot.png")?;
            Ok(json!({
                "captured": what,
                "width": size.0,
                "height": size.1,
                (images::IMAGES_KEY): [entry],
            }))
        })
    }
}

/// The app's windows off the screen, and the screen redrawn without them.
async fn hide_own_windows(windows: &dyn OwnWindows) -> Option<Box<dyn HiddenWindows>> {
    let hidden = windows.hide().await?;
    if !crate::portal::wayland_session() {
        let pid = std::process::id();
        let gone = tokio::task::spawn_blocking(move || wait_until_gone(pid, GONE_TIMEOUT)).await;
        match gone {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => {
                tracing::warn!("the app's windows were still on the screen when it was captured")
            }
            Ok(Err(error)) => tracing::warn!(%error, "the app's windows could not be watched"),
            Err(error) => tracing::warn!(%error, "the app's windows could not be watched"),
        }
    }
    tokio::time::sleep(REPAINT).await;
    Some(hidden)
}

async fn take(target: Target) -> Result<(image::RgbaImage, String), ToolFailure> {
    if crate::portal::wayland_session() {
        // The portal's dialog lets the person choose a window or a region.
        let interactive = target != Target::Screen;
        let image =
            crate::portal::capture(interactive, None, crate::portal::PORTAL_TIMEOUT).await?;
        let what = if interactive {
            "what the person chose in the desktop's screenshot dialog"
        } else {
            "the whole screen"
        };
        Ok((image, what.to_owned()))
    } else {
        tokio::task::spawn_blocking(move || capture(&target))
            .await
            .map_err(|error| ToolFailure::new(ToolFailureCode::CaptureFailed, error.to_string()))?
    }
}

/// Waits until no window of process `pid` is viewable on the X display (a reparenting window
/// manager unmaps its frame after the app unmaps the window); false at `timeout`.
pub fn wait_until_gone(pid: u32, timeout: Duration) -> Result<bool, ToolFailure> {
    let (conn, screen_num) = x11rb::connect(None).map_err(x_error)?;
    let root = conn
        .setup()
        .roots
        .get(screen_num)
        .ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                "the X display has no such screen",
            )
        })?
        .root;
    let pid_atom = conn
        .intern_atom(false, b"_NET_WM_PID")
        .map_err(x_error)?
        .reply()
        .map_err(x_error)?
        .atom;
    let deadline = Instant::now() + timeout;
    loop {
        if !shows_window_of(&conn, root, pid_atom, pid)? {
            return Ok(true);
        }
        if Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// Whether a viewable top-level window (or the frame a window manager put around it) belongs
/// to `pid`.
fn shows_window_of(
    conn: &RustConnection,
    root: Window,
    pid_atom: u32,
    pid: u32,
) -> Result<bool, ToolFailure> {
    let top = conn
        .query_tree(root)
        .map_err(x_error)?
        .reply()
        .map_err(x_error)?
        .children;
    for window in top {
        let Ok(attributes) = conn.get_window_attributes(window).map_err(x_error)?.reply() else {
            continue; // gone meanwhile
        };
        if attributes.map_state != MapState::VIEWABLE {
            continue;
        }
        if belongs_to(conn, window, pid_atom, pid, 3)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn belongs_to(
    conn: &RustConnection,
    window: Window,
    pid_atom: u32,
    pid: u32,
    depth: u8,
) -> Result<bool, ToolFailure> {
    let owner = conn
        .get_property(false, window, pid_atom, AtomEnum::CARDINAL, 0, 1)
        .map_err(x_error)?
        .reply()
        .ok()
        .and_then(|reply| reply.value32().and_then(|mut v| v.next()));
    if owner == Some(pid) {
        return Ok(true);
    }
    if depth == 0 {
        return Ok(false);
    }
    let Ok(tree) = conn.query_tree(window).map_err(x_error)?.reply() else {
        return Ok(false);
    };
    for child in tree.children {
        if belongs_to(conn, child, pid_atom, pid, depth - 1)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[derive(Debug, Clone, PartialEq)]
enum Target {
    Screen,
    Window(String),
    Region {
        x: i16,
        y: i16,
        width: u16,
        height: u16,
    },
}

fn bad(message: impl Into<String>) -> ToolFailure {
    ToolFailure::new(ToolFailureCode::InvalidArgument, message)
}

impl Target {
    fn from_args(args: &Value) -> Result<Self, ToolFailure> {
        match args
            .get("target")
            .and_then(Value::as_str)
            .unwrap_or("screen")
        {
            "screen" => Ok(Self::Screen),
            "window" => args
                .get("window_title")
                .and_then(Value::as_str)
                .map(|t| Self::Window(t.to_owned()))
                .ok_or_else(|| bad("target `window` needs `window_title`")),
            "region" => {
                let region = args
                    .get("region")
                    .ok_or_else(|| bad("target `region` needs `region`"))?;
                let field = |name: &str, max: u64| {
                    region
                        .get(name)
                        .and_then(Value::as_u64)
                        .filter(|v| *v <= max)
                        .ok_or_else(|| {
                            bad(format!("region.{name} must be a whole number up to {max}"))
                        })
                };
                Ok(Self::Region {
                    x: field("x", i16::MAX as u64)? as i16,
                    y: field("y", i16::MAX as u64)? as i16,
                    width: field("width", u64::from(MAX_SIDE))? as u16,
                    height: field("height", u64::from(MAX_SIDE))? as u16,
                })
            }
            other => Err(bad(format!(
                "unknown target `{other}`: screen, window or region"
            ))),
        }
    }
}

fn x_error(error: impl std::fmt::Display) -> ToolFailure {
    let text = error.to_string();
    if text.contains("Access") || text.contains("Authorization") {
        ToolFailure::new(
            ToolFailureCode::PermissionDenied,
            format!("the X server refused the capture: {text}"),
        )
    } else {
        ToolFailure::new(
            ToolFailureCode::CaptureFailed,
            format!("the screen could not be read: {text}"),
        )
    }
}

/// The rectangle to read, in root coordinates, clipped to the screen.
fn capture(target: &Target) -> Result<(image::RgbaImage, String), ToolFailure> {
    let (conn, screen_num) = x11rb::connect(None).map_err(x_error)?;
    let screen = conn
        .setup()
        .roots
        .get(screen_num)
        .ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                "the X display has no such screen",
            )
        })?
        .clone();
    let (sw, sh) = (screen.width_in_pixels, screen.height_in_pixels);
    let (x, y, w, h, what) = match target {
        Target::Screen => (0, 0, sw, sh, "the whole screen".to_owned()),
        Target::Region {
            x,
            y,
            width,
            height,
        } => {
            let (x0, y0) = (*x as i32, *y as i32);
            if x0 >= i32::from(sw) || y0 >= i32::from(sh) {
                return Err(bad(format!(
                    "the region starts outside the screen ({sw}×{sh} pixels)"
                )));
            }
            let w = (*width as i32).min(i32::from(sw) - x0) as u16;
            let h = (*height as i32).min(i32::from(sh) - y0) as u16;
            (*x, *y, w, h, format!("the region {w}×{h} at ({x}, {y})"))
        }
        Target::Window(title) => {
            let (window, name) = find_window(&conn, screen.root, title)?;
            let geometry = conn
                .get_geometry(window)
                .map_err(x_error)?
                .reply()
                .map_err(x_error)?;
            let origin = conn
                .translate_coordinates(window, screen.root, 0, 0)
                .map_err(x_error)?
                .reply()
                .map_err(x_error)?;
            let x0 = i32::from(origin.dst_x).max(0);
            let y0 = i32::from(origin.dst_y).max(0);
            let x1 = (i32::from(origin.dst_x) + i32::from(geometry.width)).min(i32::from(sw));
            let y1 = (i32::from(origin.dst_y) + i32::from(geometry.height)).min(i32::from(sh));
            if x1 <= x0 || y1 <= y0 {
                return Err(ToolFailure::new(
                    ToolFailureCode::NotVisible,
                    format!("the window “{name}” is not on the screen"),
                ));
            }
            (
                x0 as i16,
                y0 as i16,
                (x1 - x0) as u16,
                (y1 - y0) as u16,
                format!("the window “{name}”"),
            )
        }
    };
    let reply = conn
        .get_image(ImageFormat::Z_PIXMAP, screen.root, x, y, w, h, !0)
        .map_err(x_error)?
        .reply()
        .map_err(x_error)?;
    let visual = screen
        .allowed_depths
        .iter()
        .flat_map(|d| d.visuals.iter())
        .find(|v| v.visual_id == reply.visual)
        .ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                "unknown visual of the screen",
            )
        })?;
    let format = conn
        .setup()
        .pixmap_formats
        .iter()
        .find(|f| f.depth == reply.depth)
        .ok_or_else(|| {
            ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                "unknown pixel format of the screen",
            )
        })?;
    let layout = Layout {
        width: w,
        height: h,
        bits_per_pixel: format.bits_per_pixel,
        scanline_pad: format.scanline_pad,
        msb_first: conn.setup().image_byte_order == ImageOrder::MSB_FIRST,
        masks: [visual.red_mask, visual.green_mask, visual.blue_mask],
    };
    Ok((to_rgba(&reply.data, &layout)?, what))
}

fn find_window(
    conn: &RustConnection,
    root: Window,
    title: &str,
) -> Result<(Window, String), ToolFailure> {
    let atom = |name: &[u8]| -> Result<u32, ToolFailure> {
        Ok(conn
            .intern_atom(false, name)
            .map_err(x_error)?
            .reply()
            .map_err(x_error)?
            .atom)
    };
    let client_list = atom(b"_NET_CLIENT_LIST")?;
    let net_name = atom(b"_NET_WM_NAME")?;
    let utf8 = atom(b"UTF8_STRING")?;
    // A window manager lists the app windows; without one, the root's children are they.
    let listed = conn
        .get_property(false, root, client_list, AtomEnum::WINDOW, 0, 4096)
        .map_err(x_error)?
        .reply()
        .map_err(x_error)?;
    let mut windows: Vec<Window> = listed.value32().map(|v| v.collect()).unwrap_or_default();
    if windows.is_empty() {
        windows = conn
            .query_tree(root)
            .map_err(x_error)?
            .reply()
            .map_err(x_error)?
            .children;
    }
    let wanted = title.to_lowercase();
    for window in windows {
        for (property, kind) in [
            (net_name, utf8),
            (u32::from(AtomEnum::WM_NAME), u32::from(AtomEnum::STRING)),
        ] {
            let Ok(cookie) = conn.get_property(false, window, property, kind, 0, 1024) else {
                continue;
            };
            let Ok(reply) = cookie.reply() else { continue };
            let name = String::from_utf8_lossy(&reply.value).into_owned();
            if !name.is_empty() && name.to_lowercase().contains(&wanted) {
                return Ok((window, name));
            }
        }
    }
    Err(ToolFailure::new(
        ToolFailureCode::NotFound,
        format!("no window has a title containing “{title}”"),
    ))
}

/// How the X server laid out the pixels it sent.
#[derive(Debug, Clone)]
struct Layout {
    width: u16,
    height: u16,
    bits_per_pixel: u8,
    scanline_pad: u8,
    msb_first: bool,
    masks: [u32; 3],
}

fn channel(pixel: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let shift = mask.trailing_zeros();
    let bits = (mask >> shift).count_ones();
    let value = (pixel & mask) >> shift;
    // Scale to 8 bits (5- and 6-bit channels of 16-bit displays).
    if bits >= 8 {
        (value >> (bits - 8)) as u8
    } else {
        ((value * 255) / ((1 << bits) - 1)) as u8
    }
}

fn to_rgba(data: &[u8], layout: &Layout) -> Result<image::RgbaImage, ToolFailure> {
    let bytes_per_pixel = match layout.bits_per_pixel {
        16 => 2,
        24 => 3,
        32 => 4,
        other => {
            return Err(ToolFailure::new(
                ToolFailureCode::CaptureFailed,
                format!("{other} bits per pixel is not supported"),
            ))
        }
    };
    let pad = usize::from(layout.scanline_pad.max(8));
    let row_bits = usize::from(layout.width) * usize::from(layout.bits_per_pixel);
    let stride = row_bits.div_ceil(pad) * pad / 8;
    let (w, h) = (usize::from(layout.width), usize::from(layout.height));
    if data.len() < stride * h {
        return Err(ToolFailure::new(
            ToolFailureCode::CaptureFailed,
            "the X server sent fewer pixels than asked",
        ));
    }
    let mut out = image::RgbaImage::new(u32::from(layout.width), u32::from(layout.height));
    for row in 0..h {
        let line = &data[row * stride..row * stride + w * bytes_per_pixel];
        for (col, px) in line.chunks_exact(bytes_per_pixel).enumerate() {
            let pixel = px.iter().enumerate().fold(0u32, |acc, (i, b)| {
                let shift = if layout.msb_first {
                    (bytes_per_pixel - 1 - i) * 8
                } else {
                    i * 8
                };
                acc | (u32::from(*b) << shift)
            });
            let [r, g, b] = layout.masks.map(|mask| channel(pixel, mask));
            out.put_pixel(col as u32, row as u32, image::Rgba([r, g, b, 255]));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_32_bit_little_endian_row_becomes_rgb() {
        // Two pixels: pure red and a grey, BGRX in memory, rows padded to 32 bits.
        let data = [0x00, 0x00, 0xff, 0x00, 0x40, 0x40, 0x40, 0x00];
        let layout = Layout {
            width: 2,
            height: 1,
            bits_per_pixel: 32,
            scanline_pad: 32,
            msb_first: false,
            masks: [0xff0000, 0x00ff00, 0x0000ff],
        };
        let image = to_rgba(&data, &layout).unwrap();
        assert_eq!(image.get_pixel(0, 0).0, [255, 0, 0, 255]);
        assert_eq!(image.get_pixel(1, 0).0, [0x40, 0x40, 0x40, 255]);
    }

    #[test]
    fn a_16_bit_display_scales_its_channels_to_8_bits() {
        let pixel: u16 = 0xf81f; // magenta in 5-6-5: red 11111, green 000000, blue 11111
        let data = pixel.to_le_bytes();
        let layout = Layout {
            width: 1,
            height: 1,
            bits_per_pixel: 16,
            scanline_pad: 8,
            msb_first: false,
            masks: [0xf800, 0x07e0, 0x001f],
        };
        assert_eq!(
            to_rgba(&data, &layout).unwrap().get_pixel(0, 0).0,
            [255, 0, 255, 255]
        );
    }

    #[test]
    fn arguments_are_checked_before_the_screen_is_touched() {
        assert_eq!(Target::from_args(&json!({})).unwrap(), Target::Screen);
        assert!(Target::from_args(&json!({"target": "window"})).is_err());
        assert!(Target::from_args(
            &json!({"target": "region", "region": {"x": 0, "y": 0, "width": 0, "height": 99999}})
        )
        .is_err());
        assert_eq!(
            Target::from_args(
                &json!({"target": "region", "region": {"x": 1, "y": 2, "width": 3, "height": 4}})
            )
            .unwrap(),
            Target::Region {
                x: 1,
                y: 2,
                width: 3,
                height: 4
            }
        );
    }
}
