// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface

extension LocalAPI {
    /// `org.varlink.service`: answered to anyone who may connect; it says nothing of the data.
    func answer(_ call: VarlinkServiceInterface.Call, on context: VarlinkCallContext) {
        switch call {
        case .getInfo:
            context.responder(VarlinkServiceInterface.GetInfo.self).reply(.init(
                vendor: LocalAPIInterfaces.vendor, product: LocalAPIInterfaces.product, version: LocalAPIInterfaces.version,
                url: LocalAPIInterfaces.url, interfaces: LocalAPIInterfaces.descriptions.keys.sorted()))
        case .getInterfaceDescription(let parameters):
            let reply = context.responder(VarlinkServiceInterface.GetInterfaceDescription.self)
            guard let description = LocalAPIInterfaces.descriptions[parameters.interface] else {
                return reply.fail(.interfaceNotFound(interface: parameters.interface))
            }
            reply.reply(.init(description: description))
        }
    }
}
