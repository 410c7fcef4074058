"""Reading export files for import: the file or the .zip member, capped, small ones whole and large ones streamed."""
