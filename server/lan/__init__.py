"""The LAN: the host's announcement over multicast DNS and `kismet-join`'s search for it
(discovery.py).

Imported only when a host announces itself or a client looks for hosts; importing this
package imports none of its modules (zeroconf loads with the first announcement or search).
"""
