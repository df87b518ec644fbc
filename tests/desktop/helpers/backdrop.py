#!/usr/bin/env python3
"""A window of one colour over the whole screen, as a desktop's wallpaper: what a capture shows
where no other window is. (xsetroot no longer paints the root window of Debian 12's Xvfb.)

usage: backdrop.py RRGGBB WIDTH HEIGHT   (prints "ready" once it is shown)
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

colour, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

style = Gtk.CssProvider()
style.load_from_data(f"window {{ background-color: #{colour}; }}".encode())
Gtk.StyleContext.add_provider_for_screen(
    Gdk.Screen.get_default(), style, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION
)
window = Gtk.Window(title="backdrop")
window.set_decorated(False)
window.move(0, 0)
window.set_default_size(width, height)
window.connect("destroy", Gtk.main_quit)
window.connect(
    "map-event", lambda *_a: GLib.timeout_add(300, lambda: print("ready", flush=True) or False)
)
window.show_all()
Gtk.main()
