#!/usr/bin/env python3
"""A small window that lets the file named on its command line be dragged from it, as a file
manager does (text/uri-list over XDND): the desktop suite drags it onto Tessera with xdotool.

usage: drag-source.py FILE X Y   (the window's top left on the screen; it prints "ready")
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402

path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

window = Gtk.Window(title="drag source")
window.set_default_size(140, 120)
window.move(x, y)
box = Gtk.EventBox()
box.add(Gtk.Label(label="drag me"))
window.add(box)
box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
box.drag_source_add_uri_targets()


def give_uri(_widget, _context, data, _info, _time):
    data.set_uris([Gio.File.new_for_path(path).get_uri()])


box.connect("drag-data-get", give_uri)
window.connect("destroy", Gtk.main_quit)


def shown(*_args):
    print("ready", flush=True)
    return False


window.connect("map-event", lambda *_a: GLib.timeout_add(200, shown))
window.show_all()
Gtk.main()
