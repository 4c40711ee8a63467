// Every key of a platform file, declared once.
#include "config/KeyTableParts.hpp"
#include "config/PlatformSpec.hpp"

namespace clearfog::config {

using units::Dimension;

KeyTable make_platform_table() {
  return KeyTable(
      DocumentKind::Platform,
      "A machine: which accelerator, how many per node and how they are joined. Only single-node "
      "platforms are simulated for now; the `fabric` keys are declared so that they are recognised, "
      "but any use of them is an error.",
      {
          kind_key(DocumentKind::Platform),
          {.path = "name", .description = "Human-readable name, e.g. \"DGX A100\"."},
          {.path = "source",
           .description = "Where the figures come from and what is assumed."},
          {.path = "accelerator",
           .type = KeyType::Reference,
           .referenced_kind = DocumentKind::Accelerator,
           .description = "The accelerator of every device."},
          {.path = "node.devices",
           .type = KeyType::Integer,
           .constraint = Constraint::AtLeastOne,
           .counts = "devices",
           .description = "Accelerators per node."},
          {.path = "node.topology",
           .type = KeyType::Enum,
           .choices = names(kAllNodeTopologies, node_topology_name),
           .presence = Presence::Defaulted,
           .default_text = std::string(node_topology_name(NodeTopology::Switch)),
           .description = "How the devices of a node are joined. switch: every device has one "
                          "full-bandwidth port to a non-blocking switch (NVSwitch)."},
          {.path = "node.link.bandwidth",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bandwidth,
           .constraint = Constraint::Positive,
           .description = "Bandwidth of a device's link, per device, per direction."},
          {.path = "node.link.latency",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .constraint = Constraint::NonNegative,
           .description = "Latency of one link (device to switch); a device-to-device route "
                          "crosses two."},
          {.path = "fabric.nodes",
           .type = KeyType::Integer,
           .presence = Presence::Optional,
           .constraint = Constraint::AtLeastOne,
           .counts = "nodes",
           .description = "Not simulated yet. Number of nodes."},
          {.path = "fabric.topology",
           .type = KeyType::Enum,
           .choices = {"fat-tree", "torus", "dragonfly"},
           .presence = Presence::Optional,
           .description = "Not simulated yet. Topology of the inter-node fabric."},
          {.path = "fabric.nic.count",
           .type = KeyType::Integer,
           .presence = Presence::Optional,
           .constraint = Constraint::AtLeastOne,
           .counts = "NICs",
           .description = "Not simulated yet. Network interfaces per node."},
          {.path = "fabric.nic.bandwidth",
           .type = KeyType::Quantity,
           .dimension = Dimension::Bandwidth,
           .presence = Presence::Optional,
           .constraint = Constraint::Positive,
           .description = "Not simulated yet. Bandwidth of one NIC, per direction."},
          {.path = "fabric.nic.latency",
           .type = KeyType::Quantity,
           .dimension = Dimension::Time,
           .presence = Presence::Optional,
           .constraint = Constraint::NonNegative,
           .description = "Not simulated yet. Latency from a NIC to the fabric."},
      });
}

}  // namespace clearfog::config
